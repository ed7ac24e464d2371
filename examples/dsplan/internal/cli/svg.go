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
	svgWidth    = 960
	svgLeft     = 130 // room for node names
	svgRight    = 20
	svgPlotW    = svgWidth - svgLeft - svgRight
	svgLineH    = 220
	svgGridMaxH = 600
)

var stateStyle = []struct {
	name, color string
}{
	stateNone:        {"no pod, none wanted", "#eeeeee"},
	stateOld:         {"old, available", "#9e9e9e"},
	stateNew:         {"updated, available", "#2e7d32"},
	stateSurge:       {"surging (2 pods)", "#1565c0"},
	stateUnavailable: {"unavailable", "#d32f2f"},
}

// writeSVG draws, for each DaemonSet, the node × step state chart and the
// line chart of available, updated and down nodes against maxUnavailable.
func writeSVG(b *strings.Builder, charts []chartData) {
	var body strings.Builder
	y := 0
	for _, cd := range charts {
		y = drawChart(&body, cd, y)
	}
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", svgWidth, y, svgWidth, y)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgWidth, y)
	b.WriteString(body.String())
	b.WriteString("</svg>\n")
}

// drawChart draws one DaemonSet's two charts from y down and returns the
// y below them.
func drawChart(b *strings.Builder, cd chartData, y int) int {
	steps := len(cd.states)
	y += 24
	fmt.Fprintf(b, `<text x="10" y="%d" font-size="15" font-weight="bold">%s: %d nodes, %d syncs, %s</text>`+"\n",
		y, html.EscapeString(cd.name), len(cd.nodes), steps, fmtDur(last(cd.at)))
	y += 12
	// Legend.
	x := svgLeft
	for s := stateNone; s <= stateUnavailable; s++ {
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="12" height="12" fill="%s" stroke="#999" stroke-width="0.5"/><text x="%d" y="%d">%s</text>`+"\n",
			x, y, stateStyle[s].color, x+16, y+10, stateStyle[s].name)
		x += 40 + 6*len(stateStyle[s].name)
	}
	y += 22
	if steps == 0 || len(cd.nodes) == 0 {
		fmt.Fprintf(b, `<text x="%d" y="%d">nothing happened</text>`+"\n", svgLeft, y+12)
		return y + 24
	}
	rowH := float64(svgGridMaxH) / float64(len(cd.nodes))
	rowH = min(rowH, 14)
	xs := columns(cd.at)
	gridTop := y
	// Each row: runs of one state as one rectangle.
	labelEvery := 1
	if rowH < 9 {
		labelEvery = int(9/rowH) + 1
	}
	for j, name := range cd.nodes {
		ry := float64(gridTop) + float64(j)*rowH
		if j%labelEvery == 0 {
			fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end" font-size="%.0f">%s</text>`+"\n",
				svgLeft-4, ry+rowH-1, min(11, max(7, rowH)), html.EscapeString(name))
		}
		start := 0
		for i := 1; i <= steps; i++ {
			if i < steps && cd.states[i][j] == cd.states[start][j] {
				continue
			}
			if w := xs[i] - xs[start]; w > 0 {
				fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n",
					xs[start], ry, w, max(rowH-0.5, 0.5), stateStyle[cd.states[start][j]].color)
			}
			start = i
		}
	}
	gridBottom := gridTop + int(rowH*float64(len(cd.nodes))+0.5)
	y = timeAxis(b, cd, gridBottom)
	// Line chart, its legend above it.
	y += 8
	legend := []struct{ color, dash, label string }{
		{"#2e7d32", "", "nodes with an available pod"},
		{"#1565c0", "", "... with an available updated pod"},
		{"#d32f2f", "", "down (should run, none available)"},
		{"#ef6c00", `stroke-dasharray="6,4"`, "maxUnavailable"},
	}
	lx := svgLeft
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
			svgLeft, svgLeft+svgPlotW, py(v), py(v), svgLeft-4, py(v)+4, v)
	}
	line := func(vals []int, color, dash string, width float64) {
		var pts strings.Builder
		for i, v := range vals {
			// A step function: each value holds until the next sync.
			fmt.Fprintf(&pts, "%.1f,%.1f %.1f,%.1f ", xs[i], py(v), xs[i+1], py(v))
		}
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="%.1f" %s points="%s"/>`+"\n", color, width, dash, strings.TrimSpace(pts.String()))
	}
	line(cd.budget, "#ef6c00", `stroke-dasharray="6,4"`, 2)
	line(cd.available, "#2e7d32", "", 2)
	line(cd.updated, "#1565c0", "", 2)
	line(cd.down, "#d32f2f", "", 2.5)
	fmt.Fprintf(b, `<text x="12" y="%d" transform="rotate(-90 12 %d)" text-anchor="middle">nodes</text>`+"\n", top+svgLineH/2, top+svgLineH/2)
	return timeAxis(b, cd, top+svgLineH) + 10
}

// columns returns the x of each step's start and, last, the end of the
// plot: time runs left to right, each state holding until the next sync;
// the last state is drawn for a twentieth of the run (at least a second).
func columns(at []time.Duration) []float64 {
	span := spanOf(at)
	xs := make([]float64, len(at)+1)
	for i, t := range at {
		xs[i] = svgLeft + float64(svgPlotW)*float64(t)/float64(span)
	}
	xs[len(at)] = svgLeft + svgPlotW
	return xs
}

// spanOf is the time the x axis covers.
func spanOf(at []time.Duration) time.Duration {
	end := last(at)
	return end + max(end/20, time.Second)
}

// timeAxis draws the time axis under a chart at y and returns the y below.
func timeAxis(b *strings.Builder, cd chartData, y int) int {
	span := spanOf(cd.at)
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`+"\n", svgLeft, svgLeft+svgPlotW, y, y)
	tick := time.Second
	for _, d := range []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute,
		2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour} {
		tick = d
		if span/d <= 10 {
			break
		}
	}
	for t := time.Duration(0); t <= span; t += tick {
		x := svgLeft + float64(svgPlotW)*float64(t)/float64(span)
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#333"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			x, x, y, y+4, x, y+16, shortDur(t))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end" fill="#555">time since the start of the rollout</text>`+"\n", svgLeft+svgPlotW, y+30)
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
	for _, s := range []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000} {
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
