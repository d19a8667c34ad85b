import type { AgentDef } from '../agents/agent-def.js';
import { RulesChangedError, ShopError } from '../errors.js';
import { parseConfig, type WorkflowConfig } from '../lua/workflow-config.js';
import {
  agentRules,
  agentRulesDiffer,
  configDiffers,
  layRules,
  lookDiff,
  noRules,
  sameLook,
} from '../rules/agent-rules.js';
import { heldReason } from '../rules/hold-lines.js';
import type { EventInput } from '../store/store.js';
import type { Run, RunRules } from '../types.js';
import type { EnginePorts, FileLook } from './ports.js';

/**
 * A look before a step may be one taken this recently (the last step's look after it): an
 * older look only finds more changes, never fewer, and one look a step is what it costs
 * (a stat per rule file: measured, two looks a step were ~10% of a step on the bench's P1).
 * An edit this close before a step starts counts as made during it.
 */
const REUSE_LOOK_MS = 100;

/** The rule files around one step: looked at before its process starts and after it ends. */
export interface StepFiles {
  before(key: string): FileLook | null;
  /** Throws RulesChangedError (the run is held) when a rule file changed meanwhile. */
  after(before: FileLook | null, key: string, agent: string | null): void;
}

/**
 * The rules one drive of a run obeys: those the run recorded as it started, laid over every
 * agent definition its steps load and over the workflow's config{}; an agent first used now
 * gets its rules recorded; a file that now says otherwise is noted (once) and not followed.
 * Also watches the rule files around each step (StepFiles).
 */
export class RulesInForce implements StepFiles {
  private readonly rules: RunRules;
  /** Writes owed to the store (rules changed, their events), made at the next flush. */
  private dirty = false;
  private readonly events: EventInput[] = [];
  /** The laid-over definition per agent, for the file's definition it was made from (the loader caches those). */
  private readonly laid = new Map<string, { from: AgentDef; def: AgentDef }>();
  /** Steps whose process may be changing files now: the files seen meanwhile are not recorded as seen between steps. */
  private readonly inFlight = new Set<string>();
  /** The rule files as the run last saw them between steps (rules.files as a map). */
  private seen: FileLook;

  constructor(
    private readonly deps: {
      ports: EnginePorts;
      run: Run;
      token: string;
      dry: boolean;
      onDiffers(differs: string[]): void;
    },
  ) {
    this.rules = structuredClone(deps.run.rules ?? noRules());
    this.seen = new Map(Object.entries(this.rules.files));
  }

  /** ports.loadAgent with the run's rules laid over: what every step of the run gets. */
  readonly loadAgent = (name: string): AgentDef => {
    const def = this.deps.ports.loadAgent(name);
    const hit = this.laid.get(name);
    if (hit?.from === def) return hit.def;
    const fromFile = agentRules(def, this.shown(def.file));
    let rules = this.rules.agents[name];
    if (!rules) {
      // Not defined when the run started (or a run from before schema 11): its rules are fixed now.
      rules = this.rules.agents[name] = fromFile;
      this.owe({
        type: 'rules_recorded',
        actor: 'shop',
        channel: 'engine',
        data: { agent: name, file: fromFile.file },
      });
    } else {
      this.setDiffers(
        `${rules.file}:`,
        agentRulesDiffer(rules, fromFile).map((k) => `${rules!.file}: ${k}`),
      );
    }
    const laid = layRules(def, rules);
    this.laid.set(name, { from: def, def: laid });
    return laid;
  };

  /** Before an agent's step: first used by this run, its rules are recorded before it runs (a file that does not read fails in the step). */
  async firstUse(name: string): Promise<void> {
    if (this.rules.agents[name]) return;
    try {
      this.loadAgent(name);
    } catch {
      return;
    }
    await this.flush();
  }

  /**
   * The workflow's config{} once its file has loaded: recorded the first time, else the run's
   * own (what the file now sets otherwise is noted, not followed).
   */
  config(fromFile: WorkflowConfig): WorkflowConfig {
    const file = this.shown(this.deps.run.workflowPath);
    if (this.rules.config === null) {
      // Part of the run's start (its first load): recorded without an event of its own.
      this.rules.config = { ...fromFile };
      this.dirty = true;
      return fromFile;
    }
    const kept = parseConfig(this.rules.config);
    if (typeof kept === 'string')
      throw new ShopError(
        `run ${this.deps.run.id}'s recorded ${kept}; accept the file's with: shop resume ${this.deps.run.id} --accept-changes`,
      );
    this.setDiffers(
      `${file}: config.`,
      configDiffers(kept, fromFile).map((k) => `${file}: ${k}`),
    );
    return kept;
  }

  before(key: string): FileLook | null {
    const files = this.deps.ports.ruleFiles;
    if (!files || this.deps.dry) return null;
    const look = files.look(this.deps.run.workflowPath, REUSE_LOOK_MS);
    // Changed between steps (a person's edit): seen, so a driver that dies during this step is told apart on resume.
    if (this.inFlight.size === 0 && !sameLook(this.seen, look)) {
      this.seen = look;
      this.rules.files = Object.fromEntries(look);
      this.dirty = true;
    }
    this.inFlight.add(key);
    return look;
  }

  after(before: FileLook | null, key: string, agent: string | null): void {
    this.inFlight.delete(key);
    const files = this.deps.ports.ruleFiles;
    if (!before || !files) return;
    const changed = lookDiff(before, files.look(this.deps.run.workflowPath));
    if (!changed.length) return;
    const held = { key, agent, files: changed, at: this.deps.ports.clock.now() };
    throw new RulesChangedError(heldReason(this.deps.run.id, held), held);
  }

  /** Records what is owed (rules first used, differences noted), fenced by the driver's token. */
  async flush(): Promise<void> {
    if (!this.dirty || this.deps.dry) return;
    this.dirty = false;
    await this.deps.ports.store.setRunRules(this.deps.token, this.deps.run.id, {
      rules: structuredClone(this.rules),
      events: this.events.splice(0),
    });
  }

  private owe(event: EventInput) {
    this.dirty = true;
    this.events.push(event);
  }

  /** Replaces the differences noted under `prefix`: a new set is said once (an event, a notice). */
  private setDiffers(prefix: string, now: string[]) {
    const others = this.rules.differs.filter((d) => !d.startsWith(prefix));
    const before = this.rules.differs.filter((d) => d.startsWith(prefix));
    if (before.join('\n') === now.join('\n')) return;
    this.rules.differs = [...others, ...now];
    this.dirty = true;
    if (!now.length) return;
    this.events.push({ type: 'rules_kept', actor: 'shop', channel: 'engine', data: { differs: now } });
    this.deps.onDiffers(now);
  }

  private shown(path: string): string {
    return this.deps.ports.ruleFiles?.shown(path) ?? path;
  }
}
