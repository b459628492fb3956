package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/cluster/clustertest"
	"github.com/deltaq/deltaq/cluster/natstest"
	"github.com/deltaq/deltaq/repo"
)

func TestClusterFlagsGiveClearErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"crawl", "--data", t.TempDir(), "--cluster", "nats://127.0.0.1:1"}, `cluster.node = ""`},
		{[]string{"crawl", "--data", t.TempDir(), "--cluster", "nats://127.0.0.1:1", "--node", "a.b"}, `cluster.node = "a.b"`},
		{[]string{"crawl", "--data", t.TempDir(), "--cluster", "nats://127.0.0.1:1", "--node", "a", "--wait-nodes", "0"}, "--wait-nodes = 0"},
		{[]string{"crawl", "--data", t.TempDir(), "--cluster", "nats://127.0.0.1:1", "--node", "a"}, "cluster.url: connect nats://127.0.0.1:1"},
		{[]string{"cluster", "status"}, "--cluster"},
		{[]string{"cluster", "forget", "n1"}, "--cluster"},
		{[]string{"cluster", "forget", "--cluster", "nats://127.0.0.1:1", "n1"}, "cluster.url: connect nats://127.0.0.1:1"},
		{[]string{"cluster", "serve", "--listen", "nohost", "--store", t.TempDir()}, `--listen = "nohost"`},
		{[]string{"cluster", "serve", "--listen", "127.0.0.1:4333"}, "--store"},
		{[]string{"cluster", "serve", "--listen", "127.0.0.1:4333", "--store", t.TempDir(), "--cluster-listen", "127.0.0.1:6333", "--routes", "http://x"}, `--routes: "http://x"`},
		{[]string{"cluster", "serve", "--listen", "127.0.0.1:0", "--store", t.TempDir()}, `--listen = "127.0.0.1:0": must have a port in [1, 65535]`},
		{[]string{"cluster", "serve", "--listen", "127.0.0.1:4333", "--store", t.TempDir(), "--cluster-listen", "127.0.0.1:0", "--routes", "nats-route://127.0.0.1:6222"}, `--cluster-listen = "127.0.0.1:0": must have a port in [1, 65535]`},
		{[]string{"cluster", "serve", "--listen", "127.0.0.1:4333", "--store", t.TempDir(), "--cluster-listen", "127.0.0.1:6333"}, "--cluster-listen 127.0.0.1:6333: a cluster needs --routes"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, _, err := run(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

// natsProcs starts a cluster of three `deltaq cluster serve` processes on
// loopback and returns their client URLs, comma-separated, and the
// processes. A server whose port was taken before it bound it exits, and
// the cluster is started again on other ports (natstest.OnFreePorts),
// each attempt's logs and stores in dir apart.
func natsProcs(t *testing.T, dir string) (string, []*proc) {
	t.Helper()
	var urls []string
	var procs []*proc
	attempt := 0
	natstest.OnFreePorts(t, 6, func(ports []int) error {
		attempt++
		var routes []string
		urls = nil
		for i := range 3 {
			routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", ports[3+i]))
			urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
		}
		var logs []string
		procs = nil
		for i := range 3 {
			name := fmt.Sprintf("nats-%d", i)
			if attempt > 1 {
				name = fmt.Sprintf("nats-%d-attempt-%d", i, attempt)
			}
			cmd := exec.Command(binary, "cluster", "serve", "--name", fmt.Sprintf("nats-%d", i),
				"--listen", fmt.Sprintf("127.0.0.1:%d", ports[i]), "--cluster-listen", fmt.Sprintf("127.0.0.1:%d", ports[3+i]),
				"--routes", strings.Join(routes, ","), "--store", filepath.Join(dir, name))
			cmd.Stderr = logFile(t, dir, name+".log")
			procs = append(procs, startProc(t, cmd, nil))
			logs = append(logs, filepath.Join(dir, name+".log"))
		}
		for i, p := range procs {
			var failed error
			waitUntil(t, fmt.Sprintf("NATS server %d serving", i), func() bool {
				select {
				case <-p.exited:
					failed = fmt.Errorf("NATS server %d exited: %s", i, tail(fileText(logs[i]), 2000))
					return true
				default:
				}
				return strings.Contains(fileText(logs[i]), "cluster: NATS server nats-"+strconv.Itoa(i)+" serving")
			})
			if failed != nil {
				for _, p := range procs {
					p.kill()
				}
				return failed
			}
		}
		return nil
	})
	return strings.Join(urls, ","), procs
}

// fileText is the file's content, empty if it cannot be read.
func fileText(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func logFile(t *testing.T, dir, name string) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// bothArchives serves the replay of both archives on loopback and returns
// the crawl arguments every node shares: configuration, address mapping,
// seeds.
func bothArchives(t *testing.T, dir string) []string {
	t.Helper()
	srv := httptest.NewServer(clustertest.Replay(t))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	// Leases of 20 s outlive a NATS server's loss: the streams' new
	// leaders are elected before a node's hold on a lease (2/3 of it,
	// 13 s) runs out. With 10 s leases, elections under load took longer
	// than the 6.7 s hold, every lease lapsed, and shards changing hands
	// among the live nodes were fetched twice (cluster's doc.go).
	cfgFile := filepath.Join(dir, "crawl.yaml")
	if err := os.WriteFile(cfgFile, []byte(`crawler:
  politeness:
    global: 8
    overrides:
      - {host: tldr-en.test, min_delay: 0s, per_host: 4}
      - {host: digitalgov-2023.test, min_delay: 0s, per_host: 4}
cluster:
  lease_ttl: 20s
  dedup: 1h
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"crawl", "--config", cfgFile, "--allow-private",
		"--resolve", "tldr-en.test=127.0.0.1:" + port, "--resolve", "digitalgov-2023.test=127.0.0.1:" + port,
		"--seeds", "http://tldr-en.test/,http://digitalgov-2023.test/"}
}

// fetchedStates maps each URL the repository under data holds a fetch of
// to its state.
func fetchedStates(t *testing.T, data string) map[string]repo.PageState {
	t.Helper()
	_, db := openData(t, data)
	defer db.Close()
	return clustertest.Fetched(t, db)
}

// union takes the nodes' repositories together.
func union(t *testing.T, nodes []*crawlNode) clustertest.Union {
	t.Helper()
	var pages []map[string]repo.PageState
	for i, nd := range nodes {
		got := fetchedStates(t, nd.data)
		t.Logf("node %d fetched %d pages", i, len(got))
		pages = append(pages, got)
	}
	return clustertest.Merge(pages)
}

// crawlNode is one `deltaq crawl --cluster` process and the pages it
// reported fetched.
type crawlNode struct {
	*proc
	data    string
	fetched atomic.Int64
}

// startNodes starts n crawl processes joining url.
func startNodes(t *testing.T, dir, url string, args []string, n int) []*crawlNode {
	t.Helper()
	var nodes []*crawlNode
	for i := range n {
		nd := &crawlNode{data: filepath.Join(dir, fmt.Sprintf("node-%d", i))}
		cmd := exec.Command(binary, append(args, "--data", nd.data, "--cluster", url,
			"--node", fmt.Sprintf("n%d", i), "--wait-nodes", strconv.Itoa(n))...)
		cmd.Stdout = logFile(t, dir, fmt.Sprintf("node-%d.out", i))
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		log := logFile(t, dir, fmt.Sprintf("node-%d.err", i))
		nd.proc = startProc(t, cmd, func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				fmt.Fprintln(log, sc.Text())
				var k int64
				if _, err := fmt.Sscanf(sc.Text(), "crawl: %d fetched", &k); err == nil {
					nd.fetched.Store(k)
				}
			}
			// A line too long for the scanner: keep the rest, or the
			// node would block writing to a full pipe.
			io.Copy(log, stderr)
		})
		nodes = append(nodes, nd)
	}
	return nodes
}

// clusterHang bounds a cluster crawl: a guard against a hang, generous
// for a loaded machine, not a measurement.
const clusterHang = 5 * time.Minute

// waitNodes waits for every node still running to exit and fails the
// test at the first that failed, whichever it is: the others may be
// waiting for it (--wait-nodes). On a hang it shows what hangReport does.
func waitNodes(t *testing.T, dir, url string, nodes []*crawlNode, killed map[int]bool) {
	t.Helper()
	type exit struct {
		node int
		err  error
	}
	exits := make(chan exit, len(nodes))
	running := 0
	for i, nd := range nodes {
		if !killed[i] {
			running++
			go func() {
				<-nd.exited
				exits <- exit{i, nd.err}
			}()
		}
	}
	deadline := time.After(clusterHang)
	for ; running > 0; running-- {
		select {
		case e := <-exits:
			if e.err != nil {
				t.Fatalf("node %d: %v\n%s", e.node, e.err, tail(nodeLog(dir, e.node), 20000))
			}
		case <-deadline:
			t.Fatalf("the cluster crawl did not end within %v; %s", clusterHang, hangReport(dir, url, nodes, killed))
		}
	}
}

// waitFetched waits until the nodes have reported n pages fetched in all.
// It fails at once if a node not in killed exits first (the others may
// wait for it), and on a hang shows what hangReport does.
func waitFetched(t *testing.T, dir, url string, nodes []*crawlNode, killed map[int]bool, n int64) {
	t.Helper()
	for deadline := time.Now().Add(clusterHang); ; time.Sleep(20 * time.Millisecond) {
		var total int64
		for i, nd := range nodes {
			total += nd.fetched.Load()
			select {
			case <-nd.exited:
				if !killed[i] {
					t.Fatalf("node %d exited (%v) before the nodes fetched %d pages\n%s", i, nd.err, n, tail(nodeLog(dir, i), 20000))
				}
			default:
			}
		}
		if total >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the nodes fetched %d pages, not %d, within %v; %s", total, n, clusterHang, hangReport(dir, url, nodes, killed))
		}
	}
}

// hangReport describes a cluster crawl that hangs: the cluster's status
// (`deltaq cluster status` against url), then the log and the goroutines
// of each node still running, which it stops.
func hangReport(dir, url string, nodes []*crawlNode, killed map[int]bool) string {
	status, err := exec.Command(binary, "cluster", "status", "--cluster", url).CombinedOutput()
	if err != nil {
		status = fmt.Appendf(status, "(%v)", err)
	}
	// Each Go process prints its goroutines on SIGQUIT, and exits: why it hangs.
	var hung []int
	for i, nd := range nodes {
		select {
		case <-nd.exited:
		default:
			if !killed[i] {
				hung = append(hung, i)
				nd.cmd.Process.Signal(syscall.SIGQUIT)
			}
		}
	}
	b := strings.Builder{}
	fmt.Fprintf(&b, "the cluster's status:\n%s", status)
	for _, i := range hung {
		<-nodes[i].exited
		log, dump, _ := strings.Cut(nodeLog(dir, i), "SIGQUIT")
		fmt.Fprintf(&b, "\nnode %d, its log's end:\n%s\nits goroutines:\n%s\n", i, tail(log, 8000), dump[:min(len(dump), 40000)])
	}
	return b.String()
}

// nodeLog is what node i wrote to its standard error.
func nodeLog(dir string, i int) string {
	return fileText(filepath.Join(dir, fmt.Sprintf("node-%d.err", i)))
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

// soloCrawl crawls alone with args into dir/solo and returns its pages.
func soloCrawl(t *testing.T, dir string, args []string) map[string]repo.PageState {
	t.Helper()
	data := filepath.Join(dir, "solo")
	if out, err := exec.Command(binary, append(args, "--data", data)...).CombinedOutput(); err != nil {
		t.Fatalf("single-node crawl: %v\n%s", err, tail(string(out), 3000))
	}
	want := fetchedStates(t, data)
	if len(want) < 10000 {
		t.Fatalf("the single node fetched %d pages; both archives hold more", len(want))
	}
	return want
}

// TestClusterProcessesCrawlWhatOneProcessCrawls runs three NATS servers
// and three crawl nodes as separate processes over the replay of both
// archives: the union of the nodes' repositories holds exactly the pages
// one process crawling alone fetches, in the same states, each fetched by
// one node, and no host is fetched by two nodes.
func TestClusterProcessesCrawlWhatOneProcessCrawls(t *testing.T) {
	dir := t.TempDir()
	args := bothArchives(t, dir)
	want := soloCrawl(t, dir, args)
	url, _ := natsProcs(t, dir)
	nodes := startNodes(t, dir, url, args, 3)
	waitNodes(t, dir, url, nodes, nil)

	u := union(t, nodes)
	if len(u.Twice) > 0 {
		t.Errorf("%d pages fetched by two nodes: %v", len(u.Twice), u.Twice[:min(5, len(u.Twice))])
	}
	u.OneNodePerHost(t)
	u.Equal(t, want)
}

// waitUntil polls cond until it holds; the deadline is a guard against a
// hang, not a measurement.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	clustertest.Until(t, fmt.Sprintf("%s did not happen within %v", what, clusterHang), clusterHang, func() error {
		if !cond() {
			return errors.New("not yet")
		}
		return nil
	})
}

// inFlightBound is the most pages a node killed with kill -9 can have
// committed without the cluster knowing: those whose acknowledgements were
// queued or unconfirmed (cluster.AckBacklog), plus one commit group of the
// crawler's writer (64) handing its fetches over.
const inFlightBound = cluster.AckBacklog + 64

// TestClusterSurvivesAKilledNATSServerAndAKilledNode runs the cluster of
// TestClusterProcessesCrawlWhatOneProcessCrawls, kills one of the three
// NATS servers with kill -9 early in the crawl and then the busiest crawl
// node: the two nodes left finish the crawl; the union of the three
// repositories holds every page one process crawling alone fetches, in
// the same states and nothing more; and the pages fetched twice (by the
// dead node and again by the one that took its shards over) are at most
// the dead node's in-flight work.
func TestClusterSurvivesAKilledNATSServerAndAKilledNode(t *testing.T) {
	dir := t.TempDir()
	args := bothArchives(t, dir)
	want := soloCrawl(t, dir, args)
	url, servers := natsProcs(t, dir)
	nodes := startNodes(t, dir, url, args, 3)
	total := func() (n int64) {
		for _, nd := range nodes {
			n += nd.fetched.Load()
		}
		return n
	}
	waitFetched(t, dir, url, nodes, nil, 300)
	servers[0].kill()
	t.Logf("NATS server 0 killed after %d pages", total())
	waitFetched(t, dir, url, nodes, nil, 2000)
	victim := 0
	for i, nd := range nodes {
		if nd.fetched.Load() > nodes[victim].fetched.Load() {
			victim = i
		}
	}
	if err := nodes[victim].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-nodes[victim].exited
	t.Logf("node %d killed after it reported %d pages", victim, nodes[victim].fetched.Load())
	waitNodes(t, dir, url, nodes, map[int]bool{victim: true})

	u := union(t, nodes)
	missing := 0
	for url := range want {
		if _, ok := u.Pages[url]; !ok {
			missing++
		}
	}
	t.Logf("%d of %d pages never fetched, %d fetched twice", missing, len(want), len(u.Twice))
	if len(u.Twice) > inFlightBound {
		t.Errorf("%d pages fetched by two nodes, more than the dead node's in-flight work (%d): %v", len(u.Twice), inFlightBound, u.Twice[:5])
	}
	u.Equal(t, want)
	if t.Failed() {
		// What the hand-over did: shards taken and lost, warnings.
		for i := range nodes {
			var events []string
			for line := range strings.Lines(nodeLog(dir, i)) {
				if strings.Contains(line, "level=WARN") || strings.Contains(line, `msg="lease `) {
					events = append(events, line)
				}
			}
			t.Logf("node %d's lease events and warnings:\n%s", i, tail(strings.Join(events, ""), 8000))
		}
	}
}
