// The 5-field cron as people write it (minute hour day-of-month month day-of-week): a checker whose messages
// name the field and what it accepts, and a describer that says the schedule in plain words. croner does the
// time arithmetic; this file only keeps murmur's messages clear and its dialect to the standard five fields.

export interface CronField {
  name: 'minute' | 'hour' | 'day-of-month' | 'month' | 'day-of-week';
  min: number;
  max: number;
  names?: readonly string[];
}

export const CRON_FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  },
  // 7 is Sunday too, as in most crons.
  { name: 'day-of-week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** The fields where `?` means "no specific value" (Quartz): it stands alone, as `*` would. */
const QUESTION_FIELDS: readonly CronField['name'][] = ['day-of-month', 'day-of-week'];

function accepted(field: CronField): string {
  const names = field.names ? ` or names (${field.names.slice(0, 3).join(', ')}…)` : '';
  const question = QUESTION_FIELDS.includes(field.name) ? ', ? alone (no specific value)' : '';
  return `accepted: *${question}, a number ${field.min}-${field.max}${names}, ranges a-b, steps */n or a-b/n, lists a,b`;
}

/** Where `?` may go: alone, in day-of-month or day-of-week. */
function checkQuestion(text: string, field: CronField): string | undefined {
  if (!text.includes('?')) return undefined;
  if (!QUESTION_FIELDS.includes(field.name)) {
    const every = field.name === 'minute' ? 'every minute' : field.name === 'hour' ? 'every hour' : 'every month';
    return `field "${field.name}" does not accept "?" (only day-of-month and day-of-week do, meaning "no specific value"); write * for ${every}`;
  }
  if (text !== '?')
    return `field "${field.name}" accepts "?" (no specific value) only on its own, not in ${JSON.stringify(text)}`;
  return undefined;
}

function valueOf(token: string, field: CronField): number | undefined {
  if (/^\d+$/.test(token)) return Number(token);
  const index = field.names?.indexOf(token.toLowerCase()) ?? -1;
  if (index < 0) return undefined;
  return field.name === 'month' ? index + 1 : index;
}

/** A problem with one field, or undefined. */
function checkField(text: string, field: CronField): string | undefined {
  const question = checkQuestion(text, field);
  if (question) return question;
  const bad = (why: string) => `${field.name} field ${JSON.stringify(text)}: ${why} (${accepted(field)})`;
  for (const part of text.split(',')) {
    if (part === '') return bad('an empty list item');
    const [range, step, extra] = part.split('/');
    if (extra !== undefined) return bad('more than one "/"');
    if (step !== undefined && (!/^\d+$/.test(step) || Number(step) < 1))
      return bad(`step ${JSON.stringify(step)} is not a positive whole number`);
    if (range === '*' || range === '?') continue;
    const ends = range!.split('-');
    if (ends.length > 2) return bad(`${JSON.stringify(range)} is not a range a-b`);
    const values = ends.map((e) => valueOf(e, field));
    for (let i = 0; i < ends.length; i++) {
      const v = values[i];
      if (v === undefined) return bad(`${JSON.stringify(ends[i])} is not a number or name`);
      if (v < field.min || v > field.max) return bad(`${v} is out of range ${field.min}-${field.max}`);
    }
    if (values.length === 2 && values[0]! > values[1]!) return bad(`the range ${range} runs backwards`);
  }
  return undefined;
}

/** Checks a 5-field cron; a message naming the bad field and what it accepts, or undefined. */
export function checkCron(expr: string): string | undefined {
  const fields = expr.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5) {
    return `cron ${JSON.stringify(expr)} has ${fields.length} field${fields.length === 1 ? '' : 's'}; give exactly 5: minute hour day-of-month month day-of-week (for example "0 9 * * 1-5")`;
  }
  for (let i = 0; i < 5; i++) {
    const problem = checkField(fields[i]!, CRON_FIELDS[i]!);
    if (problem) return `cron ${JSON.stringify(expr)}: ${problem}`;
  }
  return undefined;
}

// ---- in plain words ----

function two(n: number): string {
  return String(n).padStart(2, '0');
}

function listWords(text: string, field: CronField, word: (n: number) => string): string {
  return text
    .split(',')
    .map((part) => {
      const [range, step] = part.split('/');
      const ends = range === '*' ? [] : range!.split('-').map((e) => valueOf(e, field)!);
      const span =
        ends.length === 2 ? `${word(ends[0]!)} through ${word(ends[1]!)}` : ends.length === 1 ? word(ends[0]!) : '';
      if (step) return `every ${step}${span ? ` from ${span}` : ''}`;
      return span;
    })
    .join(', ');
}

/** The schedule in plain words: "at 09:00 on Monday through Friday", "every 15 minutes"… */
export function describeCron(expr: string): string {
  if (checkCron(expr)) return `cron ${expr}`;
  const [minute, hour, dom, month, dow] = expr.trim().split(/\s+/) as [string, string, string, string, string];
  const simple = (s: string) => /^\d+$/.test(s);
  let when: string;
  const everyMinutes = /^\*\/\d+$/.test(minute) ? `every ${minute.slice(2)} minutes` : undefined;
  if (simple(minute) && simple(hour)) when = `at ${two(Number(hour))}:${two(Number(minute))}`;
  else if (simple(minute) && hour === '*') when = `at minute ${Number(minute)} of every hour`;
  else {
    const m =
      minute === '*' ? 'every minute' : (everyMinutes ?? `at minute ${listWords(minute, CRON_FIELDS[0]!, String)}`);
    const h =
      hour === '*'
        ? ''
        : /^\*\/\d+$/.test(hour)
          ? ` of every ${hour.slice(2)} hours`
          : simple(hour)
            ? ` during hour ${hour}`
            : ` during hours ${listWords(hour, CRON_FIELDS[1]!, String)}`;
    when = `${m}${h}`;
  }
  const parts = [when];
  const noDow = dow === '*' || dow === '?';
  // One day of one month reads as a date: "at 00:00 on January 1".
  if (noDow && simple(dom) && valueOf(month, CRON_FIELDS[3]!) !== undefined)
    return `${when} on ${MONTHS[valueOf(month, CRON_FIELDS[3]!)! - 1]} ${Number(dom)}`;
  if (dom !== '*' && dom !== '?') parts.push(`on day ${listWords(dom, CRON_FIELDS[2]!, String)} of the month`);
  if (month !== '*') parts.push(`in ${listWords(month, CRON_FIELDS[3]!, (n) => MONTHS[n - 1]!)}`);
  if (dow !== '*' && dow !== '?')
    parts.push(`${dom !== '*' && dom !== '?' ? 'or ' : ''}on ${listWords(dow, CRON_FIELDS[4]!, (n) => DAYS[n]!)}`);
  else if ((dom === '*' || dom === '?') && month === '*' && when.startsWith('at ') && !when.includes('hour'))
    parts.push('every day');
  return parts.join(' ');
}
