/**
 * Push sources (SPEC §4.6): the ingress behind `POST /v1/triggers/{id}/events`. The source checks
 * the signature and shape; an accepted event is delivered on the trigger's serial chain like any
 * polled one, and the caller gets its ledger row.
 */
import { SvcError } from '../errors.js';
import type { IngressRequest } from '../plugin/index.js';
import { resolveEnvironment } from '../proc/index.js';
import type { RuntimeParts, TriggerServiceDeps } from './armed.js';
import type { TriggerFiles } from './files.js';
import type { TriggerFiring } from './firing.js';
import { type DeliveryView, deliveryView, disarmedReason } from './view.js';

export class PushIngress {
  private readonly d: TriggerServiceDeps;
  private readonly files: TriggerFiles;

  constructor(
    private readonly p: RuntimeParts,
    private readonly firing: TriggerFiring,
  ) {
    this.d = p.d;
    this.files = p.files;
  }

  /** POST /v1/triggers/{id}/events: one signed event, answered with its delivery. */
  async ingress(id: string, req: Omit<IngressRequest, 'now' | 'env'>): Promise<DeliveryView> {
    const file = this.files.read(id);
    if (!file) throw new SvcError('not_found', `trigger ${id} not found`);
    const def = file.validation.definition;
    if (!def)
      throw new SvcError('invalid_state', `trigger ${id} does not validate`, { reason: 'invalid' });
    const source = this.d.registry.triggerSource(def.source.type);
    if (!source?.accept || source.meta.kind !== 'push')
      throw new SvcError(
        'invalid_state',
        `trigger ${id} has a ${def.source.type} source, which takes no pushed events`,
        {
          reason: 'not_push_source',
        },
      );
    const reason = disarmedReason(file, this.p.globalOn());
    if (reason)
      throw new SvcError('invalid_state', `trigger ${id} is not armed (${reason})`, { reason });
    const accepted = source.accept(def.source, {
      ...req,
      now: this.d.clock.now(),
      env: resolveEnvironment(this.d.config.current().environment),
    });
    if (!accepted.ok) {
      if (accepted.reason === 'not_an_event')
        throw new SvcError('validation_failed', accepted.message, { field: 'body' });
      if (accepted.reason === 'event_id_invalid')
        throw new SvcError('validation_failed', accepted.message, { field: 'X-Svc-Event-Id' });
      throw new SvcError('unauthorized', accepted.message, { reason: accepted.reason });
    }
    const row = await this.p.chains.serial(id, () =>
      this.firing.deliverNow(def, accepted.event, false),
    );
    return deliveryView(row);
  }
}
