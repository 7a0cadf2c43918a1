// A booking page as a real app builds it with Ant Design: a date picker (its day cells are table cells with a click
// handler, no role of their own), a table whose rows open on click (antd's onRow), clickable cards, a select whose
// options are divs in a popup, and a slider that is a div with role=slider (no input to write a value into).
import { Card, ConfigProvider, DatePicker, Select, Slider, Table, Typography } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

const rooms = [
  { key: 'r1', room: 'Harbour view', beds: 2, price: '€120' },
  { key: 'r2', room: 'Garden suite', beds: 3, price: '€180' },
  { key: 'r3', room: 'Attic single', beds: 1, price: '€70' },
];

function App() {
  const [date, setDate] = useState<string>('');
  const [room, setRoom] = useState<string>('');
  const [plan, setPlan] = useState<string>('');
  const [guests, setGuests] = useState('2');
  const [budget, setBudget] = useState(100);
  return (
    <ConfigProvider>
      <Typography.Title level={2}>Book a room</Typography.Title>
      <label htmlFor="arrival">Arrival</label>{' '}
      <DatePicker id="arrival" defaultPickerValue={dayjs('2024-03-01')} onChange={(d) => setDate(d ? d.format('YYYY-MM-DD') : '')} />
      <Table
        style={{ marginTop: 16 }}
        pagination={false}
        dataSource={rooms}
        columns={[
          { title: 'Room', dataIndex: 'room' },
          { title: 'Beds', dataIndex: 'beds' },
          { title: 'Price', dataIndex: 'price' },
        ]}
        onRow={(record) => ({ onClick: () => setRoom(record.room) })}
      />
      <div style={{ display: 'flex', gap: 16, marginTop: 16 }}>
        {['Breakfast', 'Half board'].map((name) => (
          <Card key={name} hoverable style={{ width: 200 }} onClick={() => setPlan(name)}>
            <Card.Meta title={name} description="Add to the stay" />
          </Card>
        ))}
      </div>
      <div style={{ marginTop: 16, width: 240 }}>
        <label htmlFor="guests">Guests</label>{' '}
        <Select
          id="guests"
          style={{ width: 120 }}
          value={guests}
          onChange={setGuests}
          options={['1', '2', '3', '4'].map((n) => ({ value: n, label: `${n} guest${n === '1' ? '' : 's'}` }))}
        />
        <p>Budget per night</p>
        <Slider ariaLabelForHandle="Budget per night" min={50} max={300} step={10} value={budget} onChange={setBudget} />
      </div>
      <p id="summary" data-guests={guests} data-budget={budget}>
        Date: <output id="chosen-date">{date || 'none'}</output>; room: <output id="chosen-room">{room || 'none'}</output>; plan:{' '}
        <output id="chosen-plan">{plan || 'none'}</output>
      </p>
    </ConfigProvider>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
