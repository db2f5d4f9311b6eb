// Entry of a render pool thread. JavaScript because Node 20 does not give a worker thread the TypeScript
// loader the process started with (Node 22 does); tsImport loads the TypeScript body on both.
import { tsImport } from 'tsx/esm/api';

const task = await tsImport('./renderTask.ts', import.meta.url);
export default task.runRenderTask;
