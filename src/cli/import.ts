// mailgrove import FILE.csv: uploads through the REST import endpoint and follows the job. Not built yet.
import type { Config } from '../config.ts';

export async function importCommand(_config: Config, _args: string[]): Promise<number> {
  console.error('mailgrove import is not built yet');
  return 2;
}
