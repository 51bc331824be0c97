// README example: testing your own code on the scripted model.
import { createMurmur, type ModelProvider } from '../../../api/index.js';
import { scriptedModel } from '../../../api/testing.js';

/** The code under test: one run of the main agent. */
export async function countNotes(cwd: string, model?: ModelProvider): Promise<string> {
  const murmur = await createMurmur({ cwd, model, sessions: false });
  try {
    return (await murmur.run('How many notes are in notes/?')).result;
  } finally {
    await murmur.close();
  }
}

/** Its test: a scripted model, its recorded calls, and a check that every scripted turn was used. */
export async function testCountNotes(cwd: string): Promise<void> {
  const model = scriptedModel({
    agents: [
      {
        match: { role: 'main', prompt: 'notes are in (\\S+)/' },
        turns: [{ toolCalls: [{ name: 'glob', arguments: { pattern: '$1/*.md' } }] }, { text: 'Two notes.' }],
      },
    ],
  });
  const answer = await countNotes(cwd, model);
  if (answer !== 'Two notes.') throw new Error(`unexpected answer: ${answer}`);
  model.assertComplete();
  const [first, second] = model.calls;
  if (!first?.tools.some((tool) => tool.name === 'glob')) throw new Error('glob was not offered');
  const found = second?.messages.find((message) => message.role === 'tool');
  if (!JSON.stringify(found?.content).includes('notes/plan.md')) throw new Error('glob did not find notes/plan.md');
}
