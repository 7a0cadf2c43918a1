// A settings page as a real app builds it with Material UI: a slider whose thumb covers its clipped range input, a
// select that opens a listbox in a popover, a switch, a menu behind a button and a confirmation dialog.
import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControl,
  FormControlLabel,
  InputLabel,
  Menu,
  MenuItem,
  Select,
  Slider,
  Switch,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

function App() {
  const [volume, setVolume] = useState(30);
  const [age, setAge] = useState('20');
  const [wifi, setWifi] = useState(false);
  const [menu, setMenu] = useState<HTMLElement | null>(null);
  const [exported, setExported] = useState('nothing');
  const [confirming, setConfirming] = useState(false);
  const [reset, setReset] = useState('no');
  return (
    <main style={{ padding: 24, maxWidth: 480 }}>
      <Typography variant="h4" component="h1">
        Settings
      </Typography>
      <Typography id="volume-label" gutterBottom>
        Volume
      </Typography>
      <Slider aria-labelledby="volume-label" value={volume} onChange={(_, v) => setVolume(v as number)} />
      <FormControl fullWidth style={{ marginTop: 16 }}>
        <InputLabel id="age-label">Age</InputLabel>
        <Select labelId="age-label" label="Age" value={age} onChange={(e) => setAge(e.target.value)}>
          <MenuItem value="10">Ten</MenuItem>
          <MenuItem value="20">Twenty</MenuItem>
          <MenuItem value="30">Thirty</MenuItem>
        </Select>
      </FormControl>
      <FormControlLabel control={<Switch checked={wifi} onChange={(e) => setWifi(e.target.checked)} />} label="Wi-Fi" />
      <div>
        <Button variant="outlined" onClick={(e) => setMenu(e.currentTarget)}>
          Export
        </Button>
        <Menu anchorEl={menu} open={menu !== null} onClose={() => setMenu(null)}>
          <MenuItem
            onClick={() => {
              setExported('PDF');
              setMenu(null);
            }}
          >
            As PDF
          </MenuItem>
          <MenuItem
            onClick={() => {
              setExported('CSV');
              setMenu(null);
            }}
          >
            As CSV
          </MenuItem>
        </Menu>{' '}
        <Button color="error" onClick={() => setConfirming(true)}>
          Reset everything
        </Button>
      </div>
      <Dialog open={confirming} onClose={() => setConfirming(false)}>
        <DialogTitle>Reset all settings?</DialogTitle>
        <DialogContent>This cannot be undone.</DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)}>Keep them</Button>
          <Button
            color="error"
            onClick={() => {
              setReset('yes');
              setConfirming(false);
            }}
          >
            Reset
          </Button>
        </DialogActions>
      </Dialog>
      <p id="state" data-volume={volume} data-age={age} data-wifi={String(wifi)} data-exported={exported} data-reset={reset}>
        Volume {volume}; age {age}; Wi-Fi {wifi ? 'on' : 'off'}; exported {exported}; reset {reset}
      </p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
