/**
 * Oracle job definitions (docs/oracle-data-sources.md): the supported subset of a Switchboard OracleJob in JSON,
 * `{"tasks": [...]}` or `{"jobs": [{"tasks": [...]}, ...]}` (the median across jobs). `parseJobDefinition`
 * checks a definition when it is created or updated (a task outside the subset, a malformed one or
 * a host not allowed is VALIDATION_ERROR naming the task); `runJobDefinition` interprets it over an
 * HTTP GET port with exact decimals. Pure but for the port.
 */
import { createHash } from 'node:crypto';
import { isLosslessNumber, parse as parseLossless, type LosslessNumber } from 'lossless-json';
import { validationError } from './errors';
import { add, compare, divide, mean, median, multiply, parseDecimal, round, subtract, type ExactDecimal } from './exact-decimal';

type Operand = { value: ExactDecimal } | { job: Job };
type PathStep = string | number;

export type Task =
  | { kind: 'httpTask'; url: string }
  | { kind: 'jsonParseTask'; path: PathStep[]; text: string }
  | { kind: 'valueTask'; value: ExactDecimal }
  | { kind: 'medianTask' | 'meanTask'; tasks: Task[]; jobs: Job[] }
  | { kind: 'multiplyTask' | 'divideTask' | 'addTask' | 'subtractTask'; operand: Operand }
  | { kind: 'roundTask'; method: 'UP' | 'DOWN'; places: number }
  | { kind: 'boundTask'; lower?: Operand; upper?: Operand; onExceedsLower?: Operand; onExceedsUpper?: Operand };
export type Job = Task[];

export interface JobDefinition {
  jobs: Job[];
}

export const supportedTasks = [
  'httpTask',
  'jsonParseTask',
  'valueTask',
  'medianTask',
  'meanTask',
  'multiplyTask',
  'divideTask',
  'addTask',
  'subtractTask',
  'roundTask',
  'boundTask',
] as const;

/** Bounds on a definition's size, so one definition cannot make a refresh unbounded. */
const MAX_TASKS = 100;
const MAX_DEPTH = 4;
export const MAX_DEFINITION_LENGTH = 20_000;

/** SHA-256 (hex) of the job definition text: the feed's `feedHash`. */
export const feedHash = (definition: string): string => createHash('sha256').update(definition, 'utf8').digest('hex');

/**
 * Whether a URL's host is allowed by ORACLE_ALLOWED_HOSTS: an entry `host` allows that host on
 * any port, `host:port` only that port.
 */
export function hostAllowed(url: URL, allowedHosts: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowedHosts.some((entry) => {
    const e = entry.toLowerCase();
    return e === host || e === `${host}:${port}` || (url.port === '' && e === url.host.toLowerCase());
  });
}

type Json = unknown;
const isObject = (u: Json): u is Record<string, Json> => typeof u === 'object' && u !== null && !Array.isArray(u) && !isLosslessNumber(u);

class Parser {
  private count = 0;
  constructor(private readonly allowedHosts: readonly string[]) {}

  definition(json: Json, field: string): JobDefinition {
    if (!isObject(json)) throw validationError(field, `${field} must be a JSON object: {"tasks": [...]} or {"jobs": [{"tasks": [...]}]}`);
    const keys = Object.keys(json);
    if (keys.length !== 1 || !['tasks', 'jobs'].includes(keys[0])) throw validationError(field, `${field} holds exactly one of "tasks" or "jobs"`);
    if ('tasks' in json) return { jobs: [this.tasks(json.tasks, `${field}.tasks`, 0)] };
    return { jobs: this.jobs(json.jobs, `${field}.jobs`, 0) };
  }

  private jobs(json: Json, field: string, depth: number): Job[] {
    if (!Array.isArray(json) || json.length === 0) throw validationError(field, `${field} must be a non-empty array of jobs`);
    return json.map((job, i) => this.job(job, `${field}[${i}]`, depth));
  }

  private job(json: Json, field: string, depth: number): Job {
    if (!isObject(json) || Object.keys(json).some((k) => k !== 'tasks')) throw validationError(field, `${field} must be a job: {"tasks": [...]}`);
    return this.tasks(json.tasks, `${field}.tasks`, depth);
  }

  private tasks(json: Json, field: string, depth: number): Task[] {
    if (!Array.isArray(json) || json.length === 0) throw validationError(field, `${field} must be a non-empty array of tasks`);
    return json.map((task, i) => this.task(task, `${field}[${i}]`, depth));
  }

  private task(json: Json, field: string, depth: number): Task {
    if (++this.count > MAX_TASKS) throw validationError(field, `a job definition holds at most ${MAX_TASKS} tasks`);
    if (depth > MAX_DEPTH) throw validationError(field, `tasks nest at most ${MAX_DEPTH} deep`);
    if (!isObject(json) || Object.keys(json).length !== 1)
      throw validationError(field, `${field} must be an object naming one task (one of ${supportedTasks.join(', ')})`);
    const [kind] = Object.keys(json);
    const body = json[kind];
    if (!(supportedTasks as readonly string[]).includes(kind))
      throw validationError(field, `${field}: ${kind} is not supported; the supported tasks are ${supportedTasks.join(', ')}`);
    const at = `${field}.${kind}`;
    if (!isObject(body)) throw validationError(at, `${at} must be an object`);
    const only = (...allowed: string[]) => {
      const other = Object.keys(body).find((k) => !allowed.includes(k));
      if (other) throw validationError(`${at}.${other}`, `${kind}.${other} is not supported (${kind} takes ${allowed.join(', ')})`);
    };
    switch (kind) {
      case 'httpTask':
        return this.http(body, at, only);
      case 'jsonParseTask': {
        only('path', 'aggregationMethod');
        if (body.aggregationMethod !== undefined && body.aggregationMethod !== 'NONE')
          throw validationError(`${at}.aggregationMethod`, 'only aggregationMethod NONE is supported (the path names one value)');
        if (typeof body.path !== 'string') throw validationError(`${at}.path`, `${kind}.path must be a JSONPath string such as "$.price"`);
        return { kind, path: parsePath(body.path, `${at}.path`), text: body.path };
      }
      case 'valueTask':
        only('value', 'big');
        return { kind, value: this.number(body.value ?? body.big, `${at}.${body.value !== undefined ? 'value' : 'big'}`) };
      case 'medianTask':
      case 'meanTask': {
        only('tasks', 'jobs');
        const tasks = body.tasks === undefined ? [] : this.tasks(body.tasks, `${at}.tasks`, depth + 1);
        const jobs = body.jobs === undefined ? [] : this.jobs(body.jobs, `${at}.jobs`, depth + 1);
        if (!tasks.length && !jobs.length) throw validationError(at, `${kind} needs tasks or jobs`);
        return { kind, tasks, jobs };
      }
      case 'multiplyTask':
      case 'divideTask':
      case 'addTask':
      case 'subtractTask':
        only('scalar', 'big', 'job');
        return { kind, operand: this.operand(body, ['scalar', 'big', 'job'], at, depth) };
      case 'roundTask': {
        only('method', 'decimals');
        const method = body.method ?? 'METHOD_ROUND_UP';
        if (method !== 'METHOD_ROUND_UP' && method !== 'METHOD_ROUND_DOWN')
          throw validationError(`${at}.method`, 'roundTask.method is METHOD_ROUND_UP or METHOD_ROUND_DOWN');
        const places = body.decimals === undefined ? 0 : Number(this.integerText(body.decimals, `${at}.decimals`));
        if (places > 18) throw validationError(`${at}.decimals`, 'roundTask.decimals is at most 18');
        return { kind, method: method === 'METHOD_ROUND_UP' ? 'UP' : 'DOWN', places };
      }
      default: {
        only(
          'lowerBound',
          'lowerBoundValue',
          'upperBound',
          'upperBoundValue',
          'onExceedsLowerBound',
          'onExceedsLowerBoundValue',
          'onExceedsUpperBound',
          'onExceedsUpperBoundValue',
        );
        const side = (name: string) =>
          body[name] !== undefined || body[`${name}Value`] !== undefined
            ? this.operand({ [name]: body[name], [`${name}Value`]: body[`${name}Value`] }, [`${name}Value`, name], at, depth)
            : undefined;
        const bound = {
          kind: 'boundTask' as const,
          lower: side('lowerBound'),
          upper: side('upperBound'),
          onExceedsLower: side('onExceedsLowerBound'),
          onExceedsUpper: side('onExceedsUpperBound'),
        };
        if (!bound.lower && !bound.upper) throw validationError(at, 'boundTask needs lowerBoundValue or upperBoundValue (or a lowerBound/upperBound job)');
        return bound;
      }
    }
  }

  private http(body: Record<string, Json>, at: string, only: (...allowed: string[]) => void): Task {
    only('url', 'method', 'headers');
    if (body.method !== undefined && body.method !== 'METHOD_GET' && body.method !== 'GET')
      throw validationError(`${at}.method`, 'httpTask supports GET only (method METHOD_GET)');
    if (body.headers !== undefined && !(Array.isArray(body.headers) && body.headers.length === 0))
      throw validationError(`${at}.headers`, 'httpTask headers are not supported');
    if (typeof body.url !== 'string') throw validationError(`${at}.url`, 'httpTask.url must be a URL string');
    let url: URL;
    try {
      url = new URL(body.url);
    } catch {
      throw validationError(`${at}.url`, `httpTask.url ${body.url} is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validationError(`${at}.url`, 'httpTask.url must be http(s)');
    if (url.username || url.password) throw validationError(`${at}.url`, 'httpTask.url must not carry credentials');
    if (!hostAllowed(url, this.allowedHosts))
      throw validationError(`${at}.url`, `httpTask host ${url.host} is not allowed (ORACLE_ALLOWED_HOSTS: ${this.allowedHosts.join(', ') || 'none'})`);
    return { kind: 'httpTask', url: url.toString() };
  }

  /** One of the named operand forms: a number (`scalar`, `big`, `…Value`) or a nested job. */
  private operand(body: Record<string, Json>, names: string[], at: string, depth: number): Operand {
    const given = names.filter((n) => body[n] !== undefined);
    if (given.length !== 1) throw validationError(at, `${at.split('.').pop()} takes exactly one of ${names.join(', ')}`);
    const [name] = given;
    return name === 'job' || !/Value$|^scalar$|^big$/.test(name)
      ? { job: this.job(body[name], `${at}.${name}`, depth + 1) }
      : { value: this.number(body[name], `${at}.${name}`) };
  }

  private number(json: Json, field: string): ExactDecimal {
    const text = isLosslessNumber(json) ? (json as LosslessNumber).value : typeof json === 'string' ? json : undefined;
    const value = text === undefined ? undefined : parseDecimal(text);
    if (!value) throw validationError(field, `${field} must be a decimal number`);
    return value;
  }

  private integerText(json: Json, field: string): string {
    const text = isLosslessNumber(json) ? (json as LosslessNumber).value : undefined;
    if (!text || !/^\d+$/.test(text)) throw validationError(field, `${field} must be a non-negative integer`);
    return text;
  }
}

/** The supported JSONPath subset: `$`, `.name`, `['name']`, `["name"]`, `[index]`. */
export function parsePath(path: string, field: string): PathStep[] {
  const steps: PathStep[] = [];
  let rest = path.trim();
  if (!rest.startsWith('$')) throw validationError(field, `${field} must start with $`);
  rest = rest.slice(1);
  const token = /^(?:\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\])/;
  while (rest) {
    const m = token.exec(rest);
    if (!m) throw validationError(field, `${field}: "${path}" uses JSONPath beyond the supported subset ($, .name, ['name'], [index])`);
    steps.push(m[2] !== undefined ? Number(m[2]) : (m[1] ?? m[3] ?? m[4]));
    rest = rest.slice(m[0].length);
  }
  return steps;
}

/**
 * Parses and checks a job definition (JSON text). `field` names it in the request
 * (`itemData.providerDetails.jobDefinition`); a task at fault is named below it.
 */
export function parseJobDefinition(text: string, allowedHosts: readonly string[], field: string): JobDefinition {
  if (text.length > MAX_DEFINITION_LENGTH) throw validationError(field, `${field} is longer than ${MAX_DEFINITION_LENGTH} characters`);
  let json: Json;
  try {
    json = parseLossless(text);
  } catch (error) {
    throw validationError(field, `${field} is not valid JSON: ${(error as Error).message}`);
  }
  return new Parser(allowedHosts).definition(json, field);
}

/** Why a job gave no value (a source down, a path not found, a bound exceeded): the last value stays. */
export class JobFailure extends Error {
  override readonly name = 'JobFailure';
}

/** Where jobs may read from and the caps on each read (configuration: ORACLE_ALLOWED_HOSTS, ...). */
export interface OraclePolicy {
  /** `host` (any port) or `host:port` entries. */
  allowedHosts: string[];
  /** Largest response body read (ORACLE_MAX_RESPONSE_BYTES, default 64 KiB). */
  maxResponseBytes: number;
  /** Per request, connect to last byte (ORACLE_HTTP_TIMEOUT_MS, default 5000). */
  timeoutMs: number;
}

/** The port a job reads its sources through: GET `url`, the body as text (caps and hosts enforced by the adapter). */
export type HttpGet = (url: string) => Promise<string>;

type Current = { text: string } | { value: ExactDecimal } | null;

function valueOf(current: Current, task: string): ExactDecimal {
  if (!current || !('value' in current)) throw new JobFailure(`${task} needs a number before it (from valueTask, jsonParseTask, ...)`);
  return current.value;
}

function jsonAt(body: string, path: PathStep[], text: string): ExactDecimal {
  let node: Json;
  try {
    node = parseLossless(body);
  } catch {
    throw new JobFailure('jsonParseTask: the response is not JSON');
  }
  for (const step of path) {
    if (typeof step === 'number' ? !Array.isArray(node) : !isObject(node)) throw new JobFailure(`jsonParseTask: ${text} not found in the response`);
    node = (node as Record<string | number, Json>)[step];
    if (node === undefined) throw new JobFailure(`jsonParseTask: ${text} not found in the response`);
  }
  const raw = isLosslessNumber(node) ? (node as LosslessNumber).value : typeof node === 'string' ? node : undefined;
  const value = raw === undefined ? undefined : parseDecimal(raw);
  if (!value) throw new JobFailure(`jsonParseTask: ${text} is not a number`);
  return value;
}

async function operandValue(operand: Operand, http: HttpGet): Promise<ExactDecimal> {
  return 'value' in operand ? operand.value : runJob(operand.job, http, null);
}

async function runTask(task: Task, http: HttpGet, current: Current): Promise<Current> {
  switch (task.kind) {
    case 'httpTask':
      return { text: await http(task.url) };
    case 'jsonParseTask':
      if (!current || !('text' in current)) throw new JobFailure('jsonParseTask needs a response before it (httpTask)');
      return { value: jsonAt(current.text, task.path, task.text) };
    case 'valueTask':
      return { value: task.value };
    case 'medianTask':
    case 'meanTask': {
      const values = [
        ...(await Promise.all(task.tasks.map((t) => runJob([t], http, current)))),
        ...(await Promise.all(task.jobs.map((j) => runJob(j, http, null)))),
      ];
      return { value: task.kind === 'medianTask' ? median(values) : mean(values) };
    }
    case 'multiplyTask':
      return { value: multiply(valueOf(current, task.kind), await operandValue(task.operand, http)) };
    case 'addTask':
      return { value: add(valueOf(current, task.kind), await operandValue(task.operand, http)) };
    case 'subtractTask':
      return { value: subtract(valueOf(current, task.kind), await operandValue(task.operand, http)) };
    case 'divideTask': {
      const quotient = divide(valueOf(current, task.kind), await operandValue(task.operand, http));
      if (!quotient) throw new JobFailure('divideTask: division by zero');
      return { value: quotient };
    }
    case 'roundTask':
      return { value: round(valueOf(current, task.kind), task.places, task.method) };
    case 'boundTask': {
      const value = valueOf(current, task.kind);
      if (task.lower && compare(value, await operandValue(task.lower, http)) < 0) {
        if (!task.onExceedsLower) throw new JobFailure(`boundTask: the value is below its lower bound`);
        return { value: await operandValue(task.onExceedsLower, http) };
      }
      if (task.upper && compare(value, await operandValue(task.upper, http)) > 0) {
        if (!task.onExceedsUpper) throw new JobFailure(`boundTask: the value is above its upper bound`);
        return { value: await operandValue(task.onExceedsUpper, http) };
      }
      return current;
    }
  }
}

async function runJob(job: Job, http: HttpGet, input: Current): Promise<ExactDecimal> {
  let current = input;
  for (const task of job) current = await runTask(task, http, current);
  return valueOf(current, 'a job');
}

/** Runs every job of the definition and answers their median (one job: its value). Throws JobFailure. */
export async function runJobDefinition(definition: JobDefinition, http: HttpGet): Promise<ExactDecimal> {
  return median(await Promise.all(definition.jobs.map((job) => runJob(job, http, null))));
}
