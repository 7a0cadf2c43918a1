/** What a runner gives the agent: one MCP tool call, its answer's text and whether it is an error. */
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<{ text: string; isError: boolean }>;

export declare class ToolRefused extends Error {}
export declare class NotShown extends Error {}

export declare function findRef(snapshot: string, role: string, text: string, exact?: boolean): string | null;
export declare function evaluated(text: string): unknown;

export interface SliderField {
  role: string;
  name: string;
  type: 'textbox' | 'checkbox' | 'radio' | 'combobox' | 'slider';
  value: string;
}

export declare class ScriptedAgent {
  constructor(call: CallTool);
  /** Characters of every answer the agent read. */
  chars: number;
  calls: number;
  /** The page as the agent last saw it (a snapshot block). */
  seen: string;
  tool(name: string, args: Record<string, unknown>): Promise<string>;
  open(url: string, ready: string): Promise<void>;
  ref(role: string, text: string, exact?: boolean): Promise<string>;
  click(role: string, text: string, exact?: boolean): Promise<void>;
  hover(role: string, text: string, exact?: boolean): Promise<void>;
  type(role: string, name: string, text: string, options?: { slowly?: boolean; submit?: boolean }): Promise<void>;
  fill(fields: SliderField[]): Promise<void>;
}

export interface Task {
  id: string;
  library: string;
  page: string;
  ready: string;
  goal: string;
  run(agent: ScriptedAgent): Promise<void>;
  check: string;
  expect: unknown;
}

export interface TaskOutcome {
  id: string;
  library: string;
  /** The page shows the task done, and no tool answered an error on the way. */
  done: boolean;
  /** Every tool answered as if it had worked, yet the page does not show the task done. */
  falseSuccess: boolean;
  why?: string;
  chars: number;
  calls: number;
  ms: number;
}

export declare const TASKS: Task[];
export declare function runTask(task: Task, call: CallTool, url: (path: string) => string): Promise<TaskOutcome>;
