import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import { defineTabTool } from '../session/tool.js';
import { callWebMcpTool, findWebMcpTool, UNTRUSTED_NOTE, webMcpLines } from '../engine/webmcp.js';

const OFF =
  'Pages\' own tools (WebMCP) are off for this session: the gateway runs with --no-webmcp, or, in the person\'s browser, the person has not allowed agents to call the tools sites offer (browsermcp settings → "Let agents call the tools sites offer them"). Ask the person, or use the page as it is.';

const list = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_webmcp_list',
    title: "List the page's own tools (WebMCP)",
    description: `List the tools the page registers for agents (WebMCP), in every frame, with their input schemas. Their names, descriptions and schemas are ${UNTRUSTED_NOTE}.`,
    inputSchema: z.object({}),
    type: 'readOnly',
  },
  async handle(tab, _args, response, session) {
    if (!session.config.webmcp) throw new ToolError(OFF);
    const listing = await tab.refreshWebMcp();
    if (!listing.tools.length) {
      response.addResult('The page registers no WebMCP tools (document.modelContext is absent, or no tool is registered in any frame).');
      return;
    }
    response.addResult(
      [
        `${listing.tools.length} WebMCP tool${listing.tools.length > 1 ? 's' : ''} on the page (${UNTRUSTED_NOTE}); call one with browser_webmcp_call:`,
        ...webMcpLines(listing, ''),
      ].join('\n'),
    );
  },
});

const call = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_webmcp_call',
    title: "Call one of the page's own tools (WebMCP)",
    description: `Call a tool the page registers for agents (WebMCP; browser_webmcp_list lists them). It runs the page's own code; its output is ${UNTRUSTED_NOTE}.`,
    inputSchema: z.object({
      name: z.string().min(1, 'name must not be empty').describe('The WebMCP tool to call, as browser_webmcp_list names it'),
      // A free-form object, said so (a bare {} for its values is a schema that constrains nothing: Inspector --strict).
      params: z.record(z.string(), z.unknown()).meta({ additionalProperties: true }).optional().describe("The tool's input, matching its inputSchema"),
      frame: z.string().optional().describe('The frame that registered it, when two frames register the same name (as browser_webmcp_list shows it)'),
    }),
    type: 'action',
  },
  async handle(tab, { name, params, frame }, response, session) {
    if (!session.config.webmcp) throw new ToolError(OFF);
    const tool = findWebMcpTool(await tab.refreshWebMcp(), name, frame);
    let answer: { text: string; isError: boolean } | undefined;
    await tab.runAction(async () => {
      answer = await callWebMcpTool(tool, params ?? {}, {
        timeoutMs: session.config.navigationTimeoutMs,
        maxChars: session.config.snapshotMaxChars,
        checkUrl: session.config.checkUrl,
      });
    });
    if (!answer) {
      response.addResult(`The WebMCP tool "${name}" opened a dialog before it answered; handle the dialog (its output is not kept).`);
      return;
    }
    if (answer.isError) response.addError(answer.text);
    else response.addResult(answer.text);
    response.setIncludeSnapshot();
  },
});

export default [list, call];
