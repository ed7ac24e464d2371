package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// usage is what a process has used so far, from its own accounting in
// /proc (Linux): CPU time (user + system, its threads included, not its
// children) and resident memory, current and peak, and the anonymous part
// of the current (RssAnon: the heap and stacks, without the pages of the
// binary itself, which every process of the test binary maps and shares).
type usage struct {
	cpu       time.Duration
	rss, peak int64 // bytes: VmRSS and VmHWM
	anon      int64 // bytes: RssAnon
}

// clockTick is the unit of the CPU times in /proc/PID/stat (USER_HZ). It is
// 100 on every Linux architecture Go supports, and glibc's sysconf reports
// the same constant.
const clockTick = 10 * time.Millisecond

// usageOf reads the usage of the running process pid.
func usageOf(pid int) (usage, error) {
	var u usage
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return u, err
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// the fields are counted from the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return u, fmt.Errorf("/proc/%d/stat: no command name in %q", pid, s)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return u, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	for _, field := range f[11:13] {
		ticks, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return u, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		u.cpu += time.Duration(ticks) * clockTick
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok || (key != "VmRSS" && key != "VmHWM" && key != "RssAnon") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return u, fmt.Errorf("/proc/%d/status %s: %w", pid, key, err)
		}
		switch key {
		case "VmRSS":
			u.rss = kb << 10
		case "VmHWM":
			u.peak = kb << 10
		default:
			u.anon = kb << 10
		}
	}
	return u, nil
}

// usage reads p's usage; the test fails when p has exited or /proc cannot
// be read.
func (c *cluster) usage(p *process) usage {
	c.t.Helper()
	if p.exited() {
		c.t.Fatalf("%s exited: %v", p.name, p.err)
	}
	u, err := usageOf(p.cmd.Process.Pid)
	if err != nil {
		c.t.Fatalf("usage of %s: %v", p.name, err)
	}
	return u
}

// anonSampler records the largest RssAnon of a process, read every 100 ms
// (the kernel keeps a peak of the whole resident set only, VmHWM).
type anonSampler struct {
	mu   sync.Mutex
	peak int64
	stop chan struct{}
	done chan struct{}
}

// sampleAnon starts sampling p until the returned sampler is stopped or
// the test ends.
func (c *cluster) sampleAnon(p *process) *anonSampler {
	s := &anonSampler{stop: make(chan struct{}), done: make(chan struct{})}
	pid := p.cmd.Process.Pid
	go func() {
		defer close(s.done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if u, err := usageOf(pid); err == nil {
				s.mu.Lock()
				s.peak = max(s.peak, u.anon)
				s.mu.Unlock()
			}
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
		}
	}()
	c.t.Cleanup(s.halt)
	return s
}

// max returns the largest RssAnon seen so far.
func (s *anonSampler) max() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

func (s *anonSampler) halt() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
}

// mib renders bytes in MiB.
func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
