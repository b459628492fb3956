package frontier

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

var update = flag.Bool("update", false, "rewrite the expected output of testdata scripts")

// TestScripts runs the scenarios in testdata/*.txt. Each block is a command
// line, "----", and the expected output up to a blank line:
//
//	config budget=10 period=1h recrawl=0.5 buffer=2 policy=uniform
//	gate a.test capacity=1 interval=1s
//	add http://a.test/1 reason=link due=0s
//	fetched http://a.test/x at=-2h        (a known page, for policies)
//	next n=2                              (jobs that may start now; then "none ready" or "drained")
//	done http://a.test/1 notbefore=5s
//	defer http://a.test/1 notbefore=5s
//	tick 1s
//	plan
//	restart                               (reload from the repository)
//	stats
//
// Times are offsets from the script's start. Run with -update to rewrite
// expected output after a deliberate change.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runScript(t, file) })
	}
}

type scriptGate map[string][2]int // host → capacity, interval in ms

func (g scriptGate) Capacity(host string) int {
	if v, ok := g[host]; ok {
		return v[0]
	}
	return 1
}

func (g scriptGate) Interval(host string) time.Duration {
	if v, ok := g[host]; ok {
		return time.Duration(v[1]) * time.Millisecond
	}
	return 0
}

type scriptState struct {
	t     *testing.T
	start time.Time
	clk   *clock.Manual
	fs    vfs.FS
	db    *repo.DB
	f     *Frontier
	cfg   Config
	gate  scriptGate
	jobs  map[string]Job
}

func runScript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := &scriptState{
		t: t, start: time.Date(2023, 1, 30, 0, 0, 0, 0, time.UTC), fs: vfs.NewMem(),
		gate: scriptGate{}, jobs: map[string]Job{},
		cfg: Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 100, Period: time.Hour}, HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"},
	}
	s.clk = clock.NewManual(s.start)
	t.Cleanup(func() {
		if s.db != nil {
			s.db.Close()
		}
	})
	var out strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := sc.Text()
		out.WriteString(line + "\n")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		got := s.run(line)
		// Skip the old expected output.
		var want strings.Builder
		if sc.Scan() && sc.Text() == "----" {
			for sc.Scan() && sc.Text() != "" {
				want.WriteString(sc.Text() + "\n")
			}
		} else {
			t.Fatalf("%s: command %q has no ---- line", file, line)
		}
		out.WriteString("----\n" + got + "\n\n")
		if !*update && got+"\n" != want.String() {
			t.Errorf("%s: %s\n got:\n%s\nwant:\n%s", file, line, got, want.String())
		}
	}
	if *update {
		if err := os.WriteFile(file, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (s *scriptState) open() {
	if s.db == nil {
		db, err := repo.Open("db", repo.Config{VersionsKept: 1, FetchLogKept: 4, StatsKept: 4, CacheBytes: 1 << 20}, repo.Options{FS: s.fs})
		if err != nil {
			s.t.Fatal(err)
		}
		s.db = db
	}
	if s.f == nil {
		f, err := New(context.Background(), s.db, s.cfg, s.gate, Uniform{}, Options{Clock: s.clk})
		if err != nil {
			s.t.Fatal(err)
		}
		s.f = f
	}
}

func (s *scriptState) offset(v string) time.Time {
	d, err := time.ParseDuration(v)
	if err != nil {
		s.t.Fatalf("bad duration %q", v)
	}
	return s.start.Add(d)
}

func (s *scriptState) run(line string) string {
	fields := strings.Fields(line)
	cmd, args := fields[0], map[string]string{}
	var pos []string
	for _, a := range fields[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			args[k] = v
		} else {
			pos = append(pos, a)
		}
	}
	atoi := func(k string, def int) int {
		if v, ok := args[k]; ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				s.t.Fatalf("%s: %v", line, err)
			}
			return n
		}
		return def
	}
	switch cmd {
	case "config":
		s.cfg.Budget.Fetches = atoi("budget", s.cfg.Budget.Fetches)
		if v, ok := args["period"]; ok {
			s.cfg.Budget.Period, _ = time.ParseDuration(v)
		}
		if v, ok := args["recrawl"]; ok {
			s.cfg.Split.Recrawl, _ = strconv.ParseFloat(v, 64)
		}
		s.cfg.HostBuffer = atoi("buffer", s.cfg.HostBuffer)
		s.cfg.Spread = args["spread"] == "true"
		return "ok"
	case "gate":
		s.gate[pos[0]] = [2]int{atoi("capacity", 1), atoi("interval", 0)}
		return "ok"
	case "add", "fetched":
		s.open()
		b := s.db.NewBatch(context.Background())
		defer b.Close()
		var items []repo.QueueItem
		for _, u := range pos {
			if cmd == "fetched" {
				at := s.offset(args["at"])
				if err := b.PutPage(&repo.Page{URL: u, State: repo.StateLive, Fetches: 1, LastFetch: at}); err != nil {
					s.t.Fatal(err)
				}
				continue
			}
			reason := map[string]repo.Reason{"seed": repo.ReasonSeed, "link": repo.ReasonLink, "recrawl": repo.ReasonRecrawl, "discovery": repo.ReasonDiscovery}[args["reason"]]
			due := s.clk.Now()
			if v, ok := args["due"]; ok {
				due = s.offset(v)
			}
			item, err := s.f.Enqueue(b, u, reason, due)
			if err != nil {
				s.t.Fatal(err)
			}
			items = append(items, item)
		}
		if err := b.Commit(); err != nil {
			s.t.Fatal(err)
		}
		s.f.Publish(items...)
		return "ok"
	case "next":
		s.open()
		n := atoi("n", 1)
		var lines []string
		for range n {
			job, ok := s.f.TryNext()
			if !ok {
				if s.f.Drained(0) {
					lines = append(lines, "drained")
				} else {
					lines = append(lines, "none ready")
				}
				break
			}
			s.jobs[job.URL] = job
			lines = append(lines, fmt.Sprintf("%s %s", job.URL, job.Class))
		}
		return strings.Join(lines, "\n")
	case "done", "defer":
		job, ok := s.jobs[pos[0]]
		if !ok {
			return "no such job"
		}
		delete(s.jobs, pos[0])
		var nb time.Time
		if v, ok := args["notbefore"]; ok {
			nb = s.offset(v)
		}
		if cmd == "defer" {
			s.f.Defer(job, nb)
			return "ok"
		}
		b := s.db.NewBatch(context.Background())
		defer b.Close()
		if err := s.f.Complete(b, job, true); err != nil {
			s.t.Fatal(err)
		}
		if err := b.PutPage(&repo.Page{URL: job.URL, State: repo.StateLive, Fetches: 1, LastFetch: s.clk.Now()}); err != nil {
			s.t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			s.t.Fatal(err)
		}
		s.f.Done(job, DoneInfo{NotBefore: nb})
		return "ok"
	case "tick":
		d, _ := time.ParseDuration(pos[0])
		s.clk.Advance(d)
		return "now " + s.clk.Now().Sub(s.start).String()
	case "plan":
		s.open()
		n, err := s.f.Plan(context.Background())
		if err != nil {
			return err.Error()
		}
		return fmt.Sprintf("planned %d", n)
	case "restart":
		s.f = nil
		s.jobs = map[string]Job{}
		s.open()
		return "ok"
	case "stats":
		s.open()
		st := s.f.Stats()
		var hosts []string
		s.f.mu.Lock()
		for h := range s.f.mu.hosts {
			hosts = append(hosts, h)
		}
		s.f.mu.Unlock()
		sort.Strings(hosts)
		return fmt.Sprintf("hosts %v buffered %v inflight %d used %d/%d byclass %v",
			hosts, st.Buffered, st.InFlight, st.BudgetUsed, st.BudgetLimit, st.PeriodByClass)
	}
	s.t.Fatalf("unknown command %q", cmd)
	return ""
}
