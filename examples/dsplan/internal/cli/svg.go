package cli

// The charts are written by hand, not with a plotting library: the
// offline command lives in the root module, which may import only the
// Kubernetes libraries, and gonum.org/v1/plot would bring a dozen modules
// for two simple charts. A grid of rectangles and four polylines is a
// small, dependency-free SVG.

import (
	"fmt"
	"html"
	"strings"
	"time"
)

// Chart geometry, in SVG user units.
const (
	svgPlotW    = 810
	svgRight    = 20
	svgLineH    = 220
	svgGridMaxH = 600
	// svgMinRowH is the thinnest row drawn: with more nodes than
	// svgGridMaxH/svgMinRowH, rows stand for several nodes each.
	svgMinRowH = 4
	// svgCharW is the width of a character of the 11-unit font, a little
	// more than sans-serif's average, so that labels always fit.
	svgCharW = 6.6
)

var stateStyle = [numStates]struct {
	name, color string
}{
	stateNone:        {"no pod, none wanted", "#eeeeee"},
	stateOld:         {"old, available", "#9e9e9e"},
	stateNew:         {"updated, available", "#2e7d32"},
	stateSurge:       {"surging (2 pods)", "#1565c0"},
	stateUnavailable: {"unavailable", "#d32f2f"},
}

// layout is the chart's left margin: room for the longest row label.
type layout struct{ left int }

func (lo layout) width() int { return lo.left + svgPlotW + svgRight }

// writeSVG draws, for each DaemonSet, the node × step state chart and the
// line chart of available, updated and down nodes against maxUnavailable.
func writeSVG(b *strings.Builder, charts []chartData) {
	lo := layout{left: 130}
	rowsOf := make([][]chartRow, len(charts))
	for i, cd := range charts {
		rowsOf[i] = chartRows(cd)
		for _, r := range rowsOf[i] {
			lo.left = max(lo.left, int(float64(len(r.label))*svgCharW)+14)
		}
	}
	var body strings.Builder
	y := 0
	for i, cd := range charts {
		y = drawChart(&body, lo, cd, rowsOf[i], y)
	}
	w := lo.width()
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", w, y, w, y)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, y)
	b.WriteString(body.String())
	b.WriteString("</svg>\n")
}

// chartRow is one row of the state chart: one node, or, when there are
// more nodes than rows fit, a run of consecutive nodes of one group.
type chartRow struct {
	label string
	// from and to are the nodes' indices in chartData.nodes, [from, to).
	from, to int
	// group is the group's value; first marks the group's first row.
	group string
	first bool
}

// chartRows lays the nodes out in rows: one per node when they fit at
// svgMinRowH each, otherwise each group (a value of the grouping label)
// gets rows in proportion to its nodes, at least one, each row a run of
// consecutive nodes in the chart's order.
func chartRows(cd chartData) []chartRow {
	n := len(cd.nodes)
	maxRows := svgGridMaxH / svgMinRowH
	type span struct {
		group    string
		from, to int
	}
	var groups []span
	for j := 0; j < n; j++ {
		if len(groups) == 0 || cd.groups[j] != groups[len(groups)-1].group {
			groups = append(groups, span{cd.groups[j], j, j})
		}
		groups[len(groups)-1].to = j + 1
	}
	var rows []chartRow
	if n <= maxRows {
		for j, name := range cd.nodes {
			rows = append(rows, chartRow{label: name, from: j, to: j + 1, group: cd.groups[j]})
		}
	} else {
		budget := max(maxRows-len(groups), 0)
		for _, g := range groups {
			size := g.to - g.from
			k := 1 + budget*size/n
			for i := range k {
				from, to := g.from+size*i/k, g.from+size*(i+1)/k
				if from == to {
					continue
				}
				label := fmt.Sprintf("%s … (%d)", cd.nodes[from], to-from)
				if to-from == 1 {
					label = cd.nodes[from]
				}
				rows = append(rows, chartRow{label: label, from: from, to: to, group: g.group})
			}
		}
	}
	for i := range rows {
		rows[i].first = cd.groupLabel != "" && (i == 0 || rows[i].group != rows[i-1].group)
	}
	return rows
}

// drawChart draws one DaemonSet's two charts from y down and returns the
// y below them.
func drawChart(b *strings.Builder, lo layout, cd chartData, rows []chartRow, y int) int {
	steps := len(cd.states)
	y += 24
	fmt.Fprintf(b, `<text x="10" y="%d" font-size="15" font-weight="bold">%s: %d nodes, %d syncs, %s</text>`+"\n",
		y, html.EscapeString(cd.name), len(cd.nodes), cd.syncs, fmtDur(last(cd.at)))
	y += 12
	// Legend.
	x := lo.left
	for s := stateNone; s < numStates; s++ {
		if s == stateSurge && cd.surgeBudget == 0 && !cd.surged {
			continue
		}
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="12" height="12" fill="%s" stroke="#999" stroke-width="0.5"/><text x="%d" y="%d">%s</text>`+"\n",
			x, y, stateStyle[s].color, x+16, y+10, stateStyle[s].name)
		x += 40 + 6*len(stateStyle[s].name)
	}
	y += 18
	if len(rows) < len(cd.nodes) {
		how := "nodes in name order"
		if cd.groupLabel != "" {
			how = "nodes of one " + shortLabel(cd.groupLabel) + ", by name"
		}
		fmt.Fprintf(b, `<text x="%d" y="%d" fill="#555">%d nodes in %d rows: a row is a run of %s, split by the share of its nodes in each state</text>`+"\n",
			lo.left, y+8, len(cd.nodes), len(rows), html.EscapeString(how))
		y += 16
	}
	y += 4
	if steps == 0 || len(cd.nodes) == 0 {
		fmt.Fprintf(b, `<text x="%d" y="%d">nothing happened</text>`+"\n", lo.left, y+12)
		return y + 24
	}
	headers := 0
	for _, r := range rows {
		if r.first {
			headers++
		}
	}
	const headerH = 16.0
	rowH := min((float64(svgGridMaxH)-headerH*float64(headers))/float64(len(rows)), 14)
	xs := columns(lo, cd.at)
	ry := float64(y)
	fontSize := min(11, max(7, rowH))
	// Label every row that has room, else one in labelEvery, at least 9
	// units apart.
	labelEvery := 1
	if rowH < 9 {
		labelEvery = int(9/rowH) + 1
	}
	k := 0
	for _, r := range rows {
		if r.first {
			fmt.Fprintf(b, `<line x1="4" x2="%d" y1="%.1f" y2="%.1f" stroke="#555" stroke-width="0.5"/>`+"\n", lo.left+svgPlotW, ry+0.5, ry+0.5)
			fmt.Fprintf(b, `<text x="%d" y="%.1f" font-size="11" font-weight="bold">%s</text>`+"\n",
				lo.left, ry+headerH-4, html.EscapeString(groupTitle(cd, r)))
			ry += headerH
			k = 0
		}
		if k%labelEvery == 0 {
			fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end" font-size="%.0f">%s</text>`+"\n",
				lo.left-4, ry+rowH-1, fontSize, html.EscapeString(r.label))
		}
		drawRow(b, cd, r, xs, ry, max(rowH-0.5, 0.5))
		ry += rowH
		k++
	}
	y = timeAxis(b, lo, cd, int(ry+0.5))
	// Line chart, its legend above it.
	y += 8
	legend := []struct{ color, dash, label string }{
		{"#2e7d32", "", "nodes with an available pod"},
		{"#1565c0", "", "... with an available updated pod"},
		{"#d32f2f", "", "down (should run, none available)"},
		{"#ef6c00", `stroke-dasharray="6,4"`, "maxUnavailable"},
	}
	lx := lo.left
	for _, l := range legend {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2" %s/><text x="%d" y="%d">%s</text>`+"\n",
			lx, lx+24, y+6, y+6, l.color, l.dash, lx+28, y+10, html.EscapeString(l.label))
		lx += 40 + 6*len(l.label)
	}
	y += 24
	top := y
	yMax := max(cd.desired, 1)
	for _, series := range [][]int{cd.budget, cd.available, cd.updated, cd.down} {
		for _, v := range series {
			yMax = max(yMax, v)
		}
	}
	if tk := ticks(yMax); len(tk) > 1 && tk[len(tk)-1] < yMax {
		// Round the top up to the next tick, so that it is labelled.
		yMax = tk[len(tk)-1] + tk[1]
	}
	py := func(v int) float64 { return float64(top) + float64(svgLineH)*(1-float64(v)/float64(yMax)) }
	// Horizontal grid and y labels.
	for _, v := range ticks(yMax) {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%d</text>`+"\n",
			lo.left, lo.left+svgPlotW, py(v), py(v), lo.left-4, py(v)+4, v)
	}
	line := func(vals []int, color, dash string, width float64) {
		var pts strings.Builder
		for i, v := range vals {
			// A step function: each value holds until the next sync.
			fmt.Fprintf(&pts, "%.1f,%.1f %.1f,%.1f ", xs[i], py(v), xs[i+1], py(v))
		}
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="%.1f" %s points="%s"/>`+"\n", color, width, dash, strings.TrimSpace(pts.String()))
	}
	line(cd.available, "#2e7d32", "", 2)
	line(cd.updated, "#1565c0", "", 2)
	line(cd.down, "#d32f2f", "", 2.5)
	// The budget last, dashed: visible where the down line reaches it.
	line(cd.budget, "#ef6c00", `stroke-dasharray="6,4"`, 2)
	fmt.Fprintf(b, `<text x="12" y="%d" transform="rotate(-90 12 %d)" text-anchor="middle">nodes</text>`+"\n", top+svgLineH/2, top+svgLineH/2)
	return timeAxis(b, lo, cd, top+svgLineH) + 10
}

// groupTitle is the header of a group: "label=value (N nodes)".
func groupTitle(cd chartData, first chartRow) string {
	n := 0
	for j := first.from; j < len(cd.nodes) && cd.groups[j] == first.group; j++ {
		n++
	}
	return fmt.Sprintf("%s=%s (%s)", shortLabel(cd.groupLabel), orDash(first.group), count(n, "node"))
}

// shortLabel drops a label key's prefix: topology.kubernetes.io/zone is
// "zone".
func shortLabel(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[i+1:]
	}
	return key
}

// drawRow draws one row: runs of steps where its nodes' states (or, for a
// row of several nodes, their shares) stay the same, as one rectangle
// per state.
func drawRow(b *strings.Builder, cd chartData, r chartRow, xs []float64, y, h float64) {
	steps := len(cd.states)
	counts := func(i int) [numStates]int {
		var c [numStates]int
		for j := r.from; j < r.to; j++ {
			c[cd.states[i][j]]++
		}
		return c
	}
	start, cur := 0, counts(0)
	for i := 1; i <= steps; i++ {
		var next [numStates]int
		if i < steps {
			if next = counts(i); next == cur {
				continue
			}
		}
		if w := xs[i] - xs[start]; w > 0 {
			total, off := r.to-r.from, 0.0
			for s := stateNone; s < numStates; s++ {
				if cur[s] == 0 {
					continue
				}
				sh := h * float64(cur[s]) / float64(total)
				fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.2f" fill="%s"/>`+"\n", xs[start], y+off, w, sh, stateStyle[s].color)
				off += sh
			}
		}
		start, cur = i, next
	}
}

// columns returns the x of each step's start and, last, the end of the
// plot: time runs left to right, each state holding until the next sync;
// the last state is drawn for a twentieth of the run (at least a second).
func columns(lo layout, at []time.Duration) []float64 {
	span := spanOf(at)
	xs := make([]float64, len(at)+1)
	for i, t := range at {
		xs[i] = float64(lo.left) + float64(svgPlotW)*float64(t)/float64(span)
	}
	xs[len(at)] = float64(lo.left + svgPlotW)
	return xs
}

// spanOf is the time the x axis covers.
func spanOf(at []time.Duration) time.Duration {
	end := last(at)
	return end + max(end/20, time.Second)
}

// timeAxis draws the time axis under a chart at y and returns the y below.
func timeAxis(b *strings.Builder, lo layout, cd chartData, y int) int {
	span := spanOf(cd.at)
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`+"\n", lo.left, lo.left+svgPlotW, y, y)
	tick := time.Second
	for _, d := range []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute,
		2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour} {
		tick = d
		if span/d <= 10 {
			break
		}
	}
	for t := time.Duration(0); t <= span; t += tick {
		x := float64(lo.left) + float64(svgPlotW)*float64(t)/float64(span)
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#333"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			x, x, y, y+4, x, y+16, shortDur(t))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end" fill="#555">time since the start of the rollout</text>`+"\n", lo.left+svgPlotW, y+30)
	return y + 36
}

// shortDur writes 2m30s, 2m, 45s.
func shortDur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ticks returns about five round values from 0 to max.
func ticks(maxV int) []int {
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000} {
		step = s
		if maxV/s <= 5 {
			break
		}
	}
	var out []int
	for v := 0; v <= maxV; v += step {
		out = append(out, v)
	}
	return out
}

func last(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[len(d)-1]
}
