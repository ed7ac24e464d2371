package livecmd

const statusHelp = `Waits until the rollout of the DaemonSet is complete under its rollout
policy, printing progress, and exits 0 then: the step a CI pipeline or a
Helm post-upgrade hook runs after changing a DaemonSet's template.

Complete is progressive.Judge of the plan of the live objects, judged again each
time the DaemonSet, its pods, its ControllerRevisions or the nodes change
(informers: get, list and watch on those four): every desired node runs one
updated, available pod (Ready for minReadySeconds), or, under a partition,
the partition's nodes keep the old revision. The policy is the one the
example controller rolls the DaemonSet out with: its rollout annotations
(rollout.daemonplan.io/...), an OnDelete DaemonSet with them judged as
companion mode rolls it (RollingUpdate with the annotated budget). Without
annotations it is upstream's rollout, as kubectl rollout status judges it.

Each change of where the rollout stands prints one line: the time since
the start, the nodes updated and available of the desired ones, per wave
of the order label (rollout.daemonplan.io/order-by), and what the rollout
waits for, in the policy's terms (progressive.Reason). Under a scope, the
counts are of the desired nodes in it; those outside are said apart, as the
companion's RolloutProgressing condition says them.

Beyond its plan, a rollout may be held by its gates (the same ones the
companion acts on, progressive.Gates.Hold): a health gate a new pod fails,
an approval point (rollout.daemonplan.io/pause-after), or the maintenance
windows (rollout.daemonplan.io/window). The progress line then says the
gate instead of what the plan would do next.

It stops early when the rollout cannot complete by itself:
  - an annotation names what the cluster does not have (a pause-after or
    approved wave, an order-by or domain label key, an order value, a
    scope no node is in): the rollout is held, complete or not (exit 1,
    naming the key, the value and what there is);
  - the template was rolled back from the change: by the companion's
    on-failure: rollback after a health gate failed, or by kubectl dsplan
    rollout undo (the rollout.daemonplan.io/outcome annotation says so, for
    the current template): exit 7 at once, naming both revisions and why,
    whatever the restored revision does; a new template, or kubectl dsplan
    rollout resume NAMESPACE/NAME (which acknowledges it), ends it;
  - the DaemonSet's RolloutBlocked condition is True for its current
    generation: the companion stopped the rollout at its progress deadline
    or at a health gate (exit 3, with the condition's reason and message);
  - a health gate fails and no controller reports the rollout's conditions
    (exit 3, naming each failing pod, its node and its signal);
  - the rollout waits for approval after a wave (exit 6 at once, naming the
    wave and the command that approves: kubectl dsplan rollout approve
    NAMESPACE/NAME), so that a pipeline can approve and run status again;
  - no node became updated and available for the progress deadline, as
    measured here from the start of the command, the last node to become
    available or the end of a pause or a hold, whichever is latest (exit 4,
    with the unavailable nodes and their causes). The deadline is --progress-deadline, or the
    progress-deadline annotation when no controller reports the rollout's
    conditions (when one does, its RolloutBlocked condition decides).
A paused rollout (the paused annotation), and one outside its maintenance
windows ("outside the maintenance windows until ..."; a window reopens by
itself), are waited for, and said so.
`

const statusExample = `  # a Helm post-upgrade hook's command
  kubectl dsplan rollout status kube-system/agent --timeout 30m

  # a pipeline that approves each wave after a check of its own
  until kubectl dsplan rollout status kube-system/agent; do
    [ $? -eq 6 ] && ./check-wave && kubectl dsplan rollout approve kube-system/agent || exit 1
  done`

const statusExitCodes = `Exit codes (rollout status):
  0  the rollout is complete (or complete at its partition)
  1  the DaemonSet is not found or is deleted, its rollout annotations are
     invalid or name what the cluster does not have (a wave, a node label,
     a label value, a node in scope: the rollout is held), or the cluster
     cannot be reached
  2  usage: a missing or malformed NAMESPACE/NAME, a bad flag
  3  blocked: the RolloutBlocked condition is True, or a health gate fails
     (when no controller reports conditions)
  4  the progress deadline passed, as measured by this command
  5  --timeout passed
  6  waiting for approval after a wave (rollout approve NAMESPACE/NAME)
  7  rolled back: the change was undone (on-failure: rollback, or rollout
     undo) and not yet acknowledged (rollout resume NAMESPACE/NAME)
  8  template skew: the newest ControllerRevision holds template fields this
     build does not know (the cluster is newer than dsplan); upgrade dsplan
`
