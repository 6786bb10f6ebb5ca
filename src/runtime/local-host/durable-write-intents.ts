import type { WriteIntentStore } from '../../store/write-intents';

/**
 * Write intents whose claim is on disk before the write it announces is sent. The local
 * Azurite saves its tables every few seconds: without this, a crash could keep the target's
 * change and lose the intent, and the run after the restart would take the change for
 * someone else's and journal nothing (Table Storage in Azure is durable when it answers).
 */
export class DurableWriteIntents implements WriteIntentStore {
  constructor(
    private readonly intents: WriteIntentStore,
    private readonly flush: () => Promise<void>,
  ) {}

  async claim(key: string, day?: string): Promise<boolean> {
    const claimedBefore = await this.intents.claim(key, day);
    // A claim made before was flushed by the run that made it, before its write.
    if (!claimedBefore) await this.flush();
    return claimedBefore;
  }

  /** Not flushed: a withdrawal lost in a crash leaves the claim, which errs on the safe side. */
  withdraw(key: string, day?: string): Promise<void> {
    return this.intents.withdraw(key, day);
  }

  purge(beforeDay: string): Promise<number> {
    return this.intents.purge(beforeDay);
  }
}
