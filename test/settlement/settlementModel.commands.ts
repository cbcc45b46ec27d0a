/**
 * The commands of the settlement model test: each does one thing a merchant, a buyer, the chain or the operator does
 * to the real server, records in the model what moved, and then every invariant is checked
 * (settlementModel.invariants.ts). An operation the server may legally refuse (a refund answered 400, 403 or 409, a
 * claim of an expired link) records nothing.
 */
import fc from 'fast-check';
import type { Address } from 'viem';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { CLAIM_TTL_MS } from '../../server/src/settlement/refunds.js';
import { checkStep } from './settlementModel.invariants.js';
import { recordSent, sentTotal, type Model, type ModelPayment } from './settlementModel.model.js';
import { CONFIRMATIONS, payByWallet, startBuyer, transfer, type World } from './settlementModel.world.js';

type Cmd = fc.AsyncCommand<Model, World>;
/** A refusal the API may answer, whether today's server or the fixed one: nothing moved. */
const LEGAL_REFUSALS = [400, 403, 404, 409, 410, 422];
const FUNDING = 100_000_000n;

async function refusedOrOk(res: Response, what: string): Promise<boolean> {
  if (res.status === 200 || res.status === 201) return true;
  if (LEGAL_REFUSALS.includes(res.status)) return false;
  throw new Error(`${what} answered ${res.status}: ${await res.text()}`);
}

const pick = <T>(items: T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);

async function statusOf(world: World, id: string): Promise<string> {
  return ((await world.runtime.db.knex('payments').where({ id }).first('status')) as { status: string }).status;
}

/** Drives the jobs a confirm starts (relay, watch) over a few blocks and clock steps. */
async function driveConfirm(world: World, id: string): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await world.runtime.jobs.drain();
    if (!['processing', 'requires_action'].includes(await statusOf(world, id))) return;
    await world.local.test.mine({ blocks: 1 });
    world.clock.advance(2_000);
  }
}

abstract class Step implements Cmd {
  abstract label(): string;
  check(_m: Readonly<Model>): boolean {
    return true;
  }
  abstract act(m: Model, w: World): Promise<void>;
  async run(m: Model, w: World): Promise<void> {
    m.steps += 1;
    await this.act(m, w);
    await checkStep(w, m);
  }
  toString(): string {
    return this.label();
  }
}

class CreatePayment extends Step {
  constructor(readonly cents: number) {
    super();
  }
  label = () => `create(${this.cents})`;
  async act(m: Model, w: World): Promise<void> {
    const res = await w.merchant('POST', '/v1/merchant/payment', {
      amount: { unit: 'iso4217/USD', value: String(this.cents) },
      referenceId: `model-${m.payments.length}`,
    });
    if (res.status !== 201) throw new Error(`createPayment answered ${res.status}: ${await res.text()}`);
    const { paymentId } = (await res.json()) as { paymentId: string };
    const buyer = await startBuyer(w, FUNDING);
    const payment: ModelPayment = {
      id: paymentId,
      mode: m.mode,
      asked: BigInt(this.cents) * 10_000n,
      buyer,
      funded: FUNDING,
      deposit: null,
      sentTo: new Map(),
    };
    if (m.mode === 'collected') {
      // The deposit address shown now, before any switch: a buyer may pay it whenever it likes.
      const dep = await w.gateway('GET', `/v1/gateway/payment/${paymentId}/deposit`);
      if (dep.status === 200) {
        const { deposits } = (await dep.json()) as { deposits: { address: string }[] };
        if (deposits[0]) payment.deposit = getAddress(deposits[0].address);
      }
    }
    m.payments.push(payment);
  }
}

class SwitchMode extends Step {
  label = () => 'switchMode';
  async act(m: Model, w: World): Promise<void> {
    m.mode = m.mode === 'collected' ? 'direct' : 'collected';
    await w.setMode(m.mode);
  }
}

class PayByWallet extends Step {
  constructor(readonly n: number) {
    super();
  }
  label = () => `payByWallet(#${this.n})`;
  async act(m: Model, w: World): Promise<void> {
    const p = pick(
      m.payments.filter((x) => sentTotal(x) === 0n),
      this.n,
    );
    if (!p) return;
    const before = await w.balance(p.buyer.account.address);
    const paid = await payByWallet(w, p.buyer, p.id);
    if (!paid) return;
    await driveConfirm(w, p.id);
    // What left the buyer's fresh wallet is what the option moved (nothing else can reach it before a success).
    recordSent(p, paid.to, before - (await w.balance(p.buyer.account.address)));
  }
}

type TransferKind = 'exact' | 'partial' | 'over' | 'late';
class Transfer extends Step {
  constructor(
    readonly n: number,
    readonly kind: TransferKind,
  ) {
    super();
  }
  label = () => `transfer(#${this.n}, ${this.kind})`;
  async act(m: Model, w: World): Promise<void> {
    const p = pick(
      m.payments.filter((x) => x.deposit !== null),
      this.n,
    );
    if (!p) return;
    const got = p.sentTo.get(p.deposit!) ?? 0n;
    const left = p.asked > got ? p.asked - got : 0n;
    const amount =
      this.kind === 'partial' ? p.asked / 3n + 1n : this.kind === 'over' ? left + 1_500_000n : left || p.asked / 2n;
    // Late: after the payment's end (a payment expires within the hour by default).
    if (this.kind === 'late') w.clock.advance(2 * 3_600_000);
    await transfer(w, p.buyer, p.deposit!, amount);
    recordSent(p, p.deposit!, amount);
    await w.scan();
    // Deep enough to count.
    await w.local.test.mine({ blocks: CONFIRMATIONS });
    await w.scan();
  }
}

/** A transfer detected and then reorganised away before finality: the model keeps nothing of it. */
class ReorgedTransfer extends Step {
  constructor(readonly n: number) {
    super();
  }
  label = () => `reorgedTransfer(#${this.n})`;
  async act(m: Model, w: World): Promise<void> {
    const p = pick(
      m.payments.filter((x) => x.deposit !== null),
      this.n,
    );
    if (!p) return;
    const snapshot = await w.local.test.snapshot();
    await transfer(w, p.buyer, p.deposit!, p.asked / 4n + 1n);
    await w.scan();
    // Reorganised away before it counted: the chain forgets it, and so does the model.
    await w.local.test.revert({ id: snapshot });
    await w.local.test.mine({ blocks: CONFIRMATIONS });
    await w.scan();
  }
}

type RefundKind = 'full' | 'partial' | 'excess';
class Refund extends Step {
  constructor(
    readonly n: number,
    readonly kind: RefundKind,
  ) {
    super();
  }
  label = () => `refund(#${this.n}, ${this.kind})`;
  async act(m: Model, w: World): Promise<void> {
    // A paid payment when there is one: a refund of an unpaid one is a refusal, and tells little.
    const paid = m.payments.filter((x) => sentTotal(x) > 0n);
    const p = pick(paid.length > 0 ? paid : m.payments, this.n);
    if (!p) return;
    const index = m.payments.indexOf(p);
    const excess = sentTotal(p) - p.asked;
    const body =
      this.kind === 'full'
        ? {}
        : { amount: String(this.kind === 'partial' ? p.asked / 3n : excess > 0n ? excess : 1_000_000n) };
    const res = await w.merchant('POST', `/v1/merchant/payment/${p.id}/refund`, body);
    if (!(await refusedOrOk(res, 'refundPayment'))) return;
    const answer = (await res.json()) as {
      refund?: { refund_id: string; amount: { value: string }; claim_url?: string | null };
    };
    // An off-platform refund (direct mode) moves nothing through Paygate.
    if (!answer.refund) return;
    m.refunds.push({
      id: answer.refund.refund_id,
      paymentIndex: index,
      amount: BigInt(answer.refund.amount.value),
      token: answer.refund.claim_url ? new URL(answer.refund.claim_url).hash.slice(1) : null,
      claimedTo: null,
    });
  }
}

class Claim extends Step {
  constructor(readonly n: number) {
    super();
  }
  label = () => `claim(#${this.n})`;
  async act(m: Model, w: World): Promise<void> {
    const r = pick(
      m.refunds.filter((x) => x.token !== null && x.claimedTo === null),
      this.n,
    );
    if (!r) return;
    const to: Address = privateKeyToAccount(generatePrivateKey()).address;
    const res = await w.gateway('POST', '/v1/gateway/refund-claims/claim', { token: r.token, address: to });
    if (await refusedOrOk(res, 'claimRefund')) r.claimedTo = to;
    r.token = null;
  }
}

class ExpireClaims extends Step {
  label = () => 'expireClaims';
  async act(_m: Model, w: World): Promise<void> {
    w.clock.advance(CLAIM_TTL_MS);
    await w.runtime.sweep();
    await w.runtime.jobs.drain();
  }
}

class Sweep extends Step {
  label = () => 'sweep';
  async act(_m: Model, w: World): Promise<void> {
    await w.scan();
    await w.planSweeps();
    await w.settleMoves();
  }
}

class PlanPayouts extends Step {
  label = () => 'planPayouts';
  async act(_m: Model, w: World): Promise<void> {
    await w.planPayouts();
  }
}

/** Runs the due jobs once: planned moves are sent, not yet final. */
class SendMoves extends Step {
  label = () => 'sendMoves';
  async act(_m: Model, w: World): Promise<void> {
    await w.runtime.jobs.drain();
  }
}

class Finalize extends Step {
  label = () => 'finalize';
  async act(_m: Model, w: World): Promise<void> {
    await w.settleMoves();
  }
}

class Restart extends Step {
  label = () => 'restartWorker';
  async act(_m: Model, w: World): Promise<void> {
    await w.restart();
  }
}

export type CommandName =
  | 'create'
  | 'switchMode'
  | 'payByWallet'
  | 'transfer'
  | 'reorgedTransfer'
  | 'refund'
  | 'claim'
  | 'expireClaims'
  | 'sweep'
  | 'planPayouts'
  | 'sendMoves'
  | 'finalize'
  | 'restart';

const index = fc.nat({ max: 7 });

/** The command arbitraries, weighted towards the steps that move money; `disabled` leaves some out. */
export function commandArbitraries(disabled: ReadonlySet<CommandName> = new Set()) {
  const all: [CommandName, number, fc.Arbitrary<Cmd>][] = [
    ['create', 4, fc.integer({ min: 100, max: 2_000 }).map((c) => new CreatePayment(c))],
    ['switchMode', 1, fc.constant(new SwitchMode())],
    ['payByWallet', 3, index.map((n) => new PayByWallet(n))],
    [
      'transfer',
      4,
      fc
        .tuple(index, fc.constantFrom<TransferKind>('exact', 'exact', 'exact', 'partial', 'over', 'late'))
        .map(([n, k]) => new Transfer(n, k)),
    ],
    ['reorgedTransfer', 1, index.map((n) => new ReorgedTransfer(n))],
    [
      'refund',
      3,
      fc.tuple(index, fc.constantFrom<RefundKind>('full', 'partial', 'excess')).map(([n, k]) => new Refund(n, k)),
    ],
    ['claim', 2, index.map((n) => new Claim(n))],
    ['expireClaims', 1, fc.constant(new ExpireClaims())],
    ['sweep', 3, fc.constant(new Sweep())],
    ['planPayouts', 3, fc.constant(new PlanPayouts())],
    ['sendMoves', 2, fc.constant(new SendMoves())],
    ['finalize', 2, fc.constant(new Finalize())],
    ['restart', 1, fc.constant(new Restart())],
  ];
  return all
    .filter(([name]) => !disabled.has(name))
    .flatMap(([, weight, arb]) => Array<fc.Arbitrary<Cmd>>(weight).fill(arb));
}
