// The wallet's own screens, which the README's examples import (copied into the consumer project).
import type { CollectData, PayableOption } from '@paygate/sdk-wallet';

export const installationId = 'install-7f3c2a';

export const ui = {
  show(_message: string): void {},
  async choose(_title: string, _labels: string[], options: PayableOption[]): Promise<PayableOption> {
    return options[0]!;
  },
  async collect(_form: CollectData): Promise<Record<string, unknown>> {
    return {};
  },
  async confirm(_question: string): Promise<boolean> {
    return false;
  },
};
