import { Box, useApp } from 'ink';
import { useMemo } from 'react';
import type { Target } from '../actions/targets.js';
import { useActions } from '../actions/use-actions.js';
import { HintLine, StatusLine } from '../components/StatusLine.js';
import type { TuiDeps } from '../deps.js';
import { useRuns } from '../hooks/use-runs.js';
import { useStatus } from '../hooks/use-status.js';
import { useTerminalSize } from '../hooks/use-terminal-size.js';
import type { Command } from '../keys/bindings.js';
import { useFocus, useHandOver } from '../keys/KeypressContext.js';
import { ConfirmAction } from '../overlays/ConfirmAction.js';
import { DecisionForm } from '../overlays/DecisionForm.js';
import { Handoff } from '../overlays/Handoff.js';
import { HelpView } from '../overlays/HelpView.js';
import { TextPrompt } from '../overlays/TextPrompt.js';
import { DetailScreen } from '../screens/detail/DetailScreen.js';
import { InboxView } from '../screens/inbox/InboxView.js';
import { useInboxInput } from '../screens/inbox/use-inbox-input.js';
import { useInboxState } from '../screens/inbox/use-inbox-state.js';
import { RunListView } from '../screens/run-list/RunListView.js';
import { useRunListInput } from '../screens/run-list/use-run-list-input.js';
import { useRunListState } from '../screens/run-list/use-run-list-state.js';
import { layoutFor } from './layout.js';
import { focusOf, useBrowser } from './use-browser.js';

const HINTS = {
  list: '[↑↓] move [Enter] open [/] filter [a] active [i] inbox [c] continue [A/R] answer [?] keys [q] quit',
  inbox: '[↑↓] move [Enter] open [c] continue [A/R] approve/reject [m] claim [Esc] runs [?] keys [q] quit',
  detail: '[↑↓] call [c] continue [A/R] answer [m] claim [s] stop [o] editor [Esc] back [?] keys [q] quit',
};

/** The run browser: the list, the inbox and a run's details, the overlays over them, one status line. */
export function Browser({ deps }: { deps: TuiDeps }) {
  const { exit } = useApp();
  const browser = useBrowser();
  const { screen, overlay, setScreen, setOverlay } = browser;
  const status = useStatus();
  const { handOver, hold, suspended } = useHandOver();
  const size = useTerminalSize(deps.rows);
  const runs = useRuns(deps.ops, deps.pollMs ?? 500, suspended);
  const layout = layoutFor(size.rows, false);
  const list = useRunListState(runs, deps.ops.liveness, (filtering) => layoutFor(size.rows, filtering).list);
  const inbox = useInboxState(deps.ops, runs.version, screen.name === 'inbox' && !suspended, layout.list);
  const actions = useActions(deps, status, browser, handOver);
  const waiting = useMemo(() => runs.runs.filter((r) => r.status === 'waiting_human').length, [runs.version]); // eslint-disable-line react-hooks/exhaustive-deps -- the run cache changes in place; its version says when
  useFocus(() => focusOf(browser.now().screen, browser.now().overlay, list.filteringNow()));

  const common = (cmd: Command | null, target: Target | null): boolean => {
    if (cmd === 'quit') exit();
    else if (cmd === 'help') setOverlay({ kind: 'help' });
    else if (cmd === 'inbox') setScreen(screen.name === 'inbox' ? { name: 'list' } : { name: 'inbox' });
    else if (cmd === 'start') hold(actions.start());
    else if (
      cmd === 'continue' ||
      cmd === 'approve' ||
      cmd === 'reject' ||
      cmd === 'claim' ||
      cmd === 'stop' ||
      cmd === 'editor'
    ) {
      // Keys typed right after A wait for its prompt, so they are typed into it.
      if (target) hold(actions.perform(cmd, target));
      else status.say('no run here to act on', 'error');
    } else return false;
    return true;
  };
  useRunListInput(list, (runId) => setScreen({ name: 'detail', runId, key: null, back: 'list' }), common);
  useInboxInput(
    inbox,
    (t) => setScreen({ name: 'detail', runId: t.runId, key: t.key, back: 'inbox' }),
    () => setScreen({ name: 'list' }),
    common,
  );

  const close = () => setOverlay(null);
  let body;
  if (overlay?.kind === 'handoff') body = <Handoff handoff={overlay} />;
  else if (overlay?.kind === 'help') body = <HelpView onClose={close} />;
  else if (overlay?.kind === 'prompt') body = <TextPrompt key={overlay.title} prompt={overlay} onCancel={close} />;
  else if (overlay?.kind === 'confirm')
    body = (
      <ConfirmAction
        confirm={overlay}
        now={() => deps.ops.liveness.clock.now()}
        onCancel={() => (close(), status.say(overlay.cancelled))}
      />
    );
  else if (overlay?.kind === 'form')
    body = (
      <DecisionForm
        key={`${overlay.run.id}:${overlay.exec.key}`}
        form={overlay}
        onSubmit={actions.submit}
        onCancel={close}
      />
    );
  else if (screen.name === 'inbox') body = <InboxView state={inbox} height={layout.list} />;
  else if (screen.name === 'list')
    body = <RunListView state={list} height={list.height} waiting={waiting} loaded={runs.loaded} />;
  // The details stay mounted under an overlay, so the picked call is still picked after it.
  const detail =
    screen.name === 'detail' ? (
      <DetailScreen
        key={screen.runId}
        deps={deps}
        run={runs.get(screen.runId)}
        runId={screen.runId}
        firstKey={screen.key}
        tick={runs.tick}
        layout={layout.detail}
        paused={suspended}
        back={() => setScreen(screen.back === 'list' ? { name: 'list' } : { name: 'inbox' })}
        common={common}
      />
    ) : null;

  return (
    <Box flexDirection="column" width={size.columns}>
      {body ?? detail}
      {body && detail ? <Box display="none">{detail}</Box> : null}
      {overlay?.kind === 'handoff' ? null : <StatusLine status={status.status} />}
      {overlay ? null : <HintLine text={HINTS[screen.name]} />}
    </Box>
  );
}
