/** Injectable time source: tests move time forward instead of sleeping. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
