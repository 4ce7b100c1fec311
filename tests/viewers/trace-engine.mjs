// @paulirish/trace_engine (the DevTools Performance panel's trace parser,
// published for node) parses the trace; we read back its slices and flows.
import * as Trace from '@paulirish/trace_engine';
import {polyfillDOMRect} from '@paulirish/trace_engine/analyze-trace.mjs';
import {summarizeParsedTrace, toViewerResult} from './parsed-trace.mjs';

export async function runTraceEngine(trace) {
  const viewer = '@paulirish/trace_engine (node)';
  polyfillDOMRect();
  const logged = [];
  const origError = console.error;
  const origWarn = console.warn;
  console.error = (...a) => logged.push(a.map(String).join(' '));
  console.warn = (...a) => logged.push(a.map(String).join(' '));
  let parsed;
  try {
    const model = Trace.TraceModel.Model.createWithAllHandlers();
    // The engine mutates events (B/E become X); give it its own copy.
    await model.parse(structuredClone(trace.traceEvents));
    parsed = model.parsedTrace();
    if (!parsed?.data) throw new Error('the engine returned no parsed trace');
  } catch (e) {
    return {viewer, error: `parse failed: ${e?.stack?.split('\n').slice(0, 3).join(' | ') ?? e}`, notes: logged.slice(0, 5)};
  } finally {
    console.error = origError;
    console.warn = origWarn;
  }
  const result = toViewerResult(viewer, summarizeParsedTrace(parsed.data));
  if (logged.length) {
    result.notes.push(`${logged.length} console errors/warnings while parsing, first: ${logged[0].slice(0, 200)}`);
  }
  return result;
}
