package cli

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// printSummary writes the table plan's text output leads with: per
// DaemonSet, what the next sync changes (pods created and deleted, pods
// and revisions adopted or released, revision history, the status write,
// the rolling budget), then the totals, and how to see every node.
func printSummary(w io.Writer, results []result, wide bool) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "DAEMONSET\tCREATE\tDELETE\tADOPT/RELEASE\tHISTORY\tSTATUS\tBUDGET")
	var creates, deletes, adopts, history, writes, failed int
	for _, r := range results {
		if r.err != nil && r.ds == nil {
			fmt.Fprintf(tw, "%s\terror\t\t\t\t\t\n", r.name)
			failed++
			continue
		}
		p := r.plan
		nc, nd := len(p.Creates), len(p.Deletes)
		na := len(p.Adopt) + len(p.Release) + len(p.History.Adopt) + len(p.History.Release) + len(p.History.Relabel)
		nh := len(p.History.Update) + len(p.History.Delete)
		if p.History.Create != nil {
			nh++
		}
		status := "-"
		if p.StatusChanged {
			status = "write"
			writes++
		}
		budget := "-"
		if s := p.Rolling; s != nil {
			budget = fmt.Sprintf("unavailable %d/%d, surge %d/%d", s.NumUnavailable, s.MaxUnavailable, s.NumSurge, s.MaxSurge)
		}
		name := r.name
		if r.err != nil {
			name += " (error)"
			failed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", name, withDeferred(nc, p.DeferredCreates), withDeferred(nd, p.DeferredDeletes), na, nh, status, budget)
		creates += nc
		deletes += nd
		adopts += na
		history += nh
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d DaemonSets: %d creates, %d deletes, %d adoptions or releases, %d revision changes, %d status writes",
		len(results), creates, deletes, adopts, history, writes)
	if failed > 0 {
		fmt.Fprintf(w, ", %d with errors", failed)
	}
	fmt.Fprintln(w)
	if !wide {
		fmt.Fprintln(w, "(-o wide adds each node's placement: should run, may keep its pod, why not)")
	}
	return nil
}

// withDeferred is n, and the burst cap's deferred ones after a "+".
func withDeferred(n, deferred int) string {
	if deferred > 0 {
		return fmt.Sprintf("%d (+%d deferred)", n, deferred)
	}
	return fmt.Sprint(n)
}
