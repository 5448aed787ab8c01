// The CLI's commands by name (run by server/cli/cli.ts, or by the running server through its admin
// socket). A module of its own, so that the commands' building blocks (commands.ts) and the demo
// (demo.ts), which uses them, do not import each other.
import { describeSummary } from '../../resources/rules/schedule.ts';
import { countsRebuild, scheduleRun, tokenCreate, userCreate, type Args, type CommandContext, type CommandOutput } from './commands.ts';
import { demo } from './demo.ts';

export const commands: Record<string, (ctx: CommandContext, args: Args) => Promise<CommandOutput>> = {
  'user:create': userCreate,
  'token:create': tokenCreate,
  'schedule:run': async (ctx, args) => describeSummary(await scheduleRun(ctx, args)),
  'counts:rebuild': (ctx) => countsRebuild(ctx),
  demo,
};
