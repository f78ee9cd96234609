/** What every measured scenario provides, and small HTTP helpers for the sample checks. */
import type { RunResult } from '../load.ts';

export interface Scenario {
  /** `--only` key (ours and the peer's same scenario share it). */
  readonly key: string;
  readonly name: string;
  /** What the rate counts. */
  readonly unit: 'req/s' | 'codes/s' | 'ops/s';
  /** Pid of the process under load. */
  readonly pid: number;
  /** Checks one sample response (and warms up); throws CheckFailed. */
  check(): Promise<void>;
  /** One timed run of `duration` seconds. */
  run(duration: number): Promise<RunResult>;
  /** Remarks gathered while running (shown under the table). */
  readonly notes: string[];
}

export interface Sent { status: number; text: string; headers: Headers }

export async function send(url: string, init: RequestInit = {}): Promise<Sent> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export const FORM = 'application/x-www-form-urlencoded';
