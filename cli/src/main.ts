/** The `mango` command: one sub-command per plugin, a thin shell over the plugins and the job pool. */
import { Command, CommanderError } from 'commander';
import { pluginsCommand } from './commands/plugins.ts';
import { removeBackgroundCommand, resizeCommand } from './commands/transforms.ts';
import { featuresCommand } from './commands/features.ts';
import { measureCommand } from './commands/measure.ts';
import { cropCommand, kmeansCommand } from './commands/single.ts';
import { bruiseCommand, evalCommand } from './commands/bruise.ts';
import { printable, UsageError } from './util.ts';

import { reportCommand } from './commands/report.ts';
import { seriesCommand } from './commands/series.ts';
import { workerCommand } from './commands/worker.ts';
import { modelsCommand } from './commands/models.ts';
import { trainCommand } from './commands/train.ts';
import { rescoreCommand } from './commands/rescore.ts';
import { VERSION } from './version.ts';

export { VERSION };

export function buildProgram(): Command {
  const program = new Command('mango')
    .description('Mango Bruise Tracker: bruise ratio, features and image tools for directories of photos')
    .version(VERSION)
    .exitOverride();
  pluginsCommand(program);
  bruiseCommand(program);
  resizeCommand(program);
  featuresCommand(program);
  measureCommand(program);
  removeBackgroundCommand(program);
  cropCommand(program);
  kmeansCommand(program);
  evalCommand(program);
  reportCommand(program);
  seriesCommand(program);
  workerCommand(program);
  modelsCommand(program);
  trainCommand(program);
  rescoreCommand(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  process.exitCode = 0;
  try {
    await program.parseAsync(argv);
    return Number(process.exitCode ?? 0);
  } catch (e) {
    // --help and --version end with 0; every other commander error (unknown command or option,
    // missing argument, no command at all) is a usage error: 2, as the README promises.
    if (e instanceof CommanderError)
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : 2;
    if (e instanceof UsageError) {
      // zod's message of failed options spans lines; any other message is one line, whatever it quotes
      const text = e.options ? e.message.split('\n').map(printable).join('\n') : printable(e.message);
      console.error(`error: ${text}`);
      if (e.options) {
        // the command (and subcommand) the words after the script name
        const words: string[] = [];
        let cmd: Command = program;
        for (const a of argv.slice(2)) {
          const sub = cmd.commands.find((c) => c.name() === a);
          if (!sub) break;
          words.push(a);
          cmd = sub;
        }
        if (words.length) console.error(`(mango ${words.join(' ')} --help lists its options)`);
      }
      return 2;
    }
    console.error(`error: ${printable((e as Error).message)}`);
    return 1;
  }
}
