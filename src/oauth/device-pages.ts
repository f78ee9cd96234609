/**
 * The pages of the device verification endpoint (RFC 8628 §3.3): oauth/
 * decides which one and with what; web/ renders it (web/device/device.page.ts),
 * handed in by app.ts. Its consent step is the authorization endpoint's
 * consent page (authorization-pages.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Why the entry form is shown again. */
export type UserCodeProblem = 'malformed' | 'unknown' | 'limited' | 'expired-form';

export interface DeviceEntryView {
  /** What the member typed, or `user_code` of `verification_uri_complete`: prefilled, never looked up unasked. */
  userCode: string;
  problem?: UserCodeProblem;
  retryAfterSeconds?: number;
}

export interface DevicePages {
  /** The form where the member types the code shown on the device. */
  entry(request: FastifyRequest, reply: FastifyReply, view: DeviceEntryView, status: number): Promise<FastifyReply>;
  /** §5.4: which app asks with this code; the member confirms it is the code on their device. */
  confirm(request: FastifyRequest, reply: FastifyReply, view: { userCode: string; clientName: string }): Promise<FastifyReply>;
  /** The continuation is unknown, answered already or expired: start again on the device. */
  expired(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  /** The continuation came to a browser that did not confirm its code (a link sent by someone else): enter the code here. */
  otherBrowser(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  /** The member is in none of the client's required regions; the device is told access_denied. */
  notInRequiredRegions(request: FastifyRequest, reply: FastifyReply, view: { message: string; clientName: string }): Promise<FastifyReply>;
  /** Answered: return to the device. */
  done(request: FastifyRequest, reply: FastifyReply, view: { approved: boolean; clientName: string }): Promise<FastifyReply>;
}
