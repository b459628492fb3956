package crawler

import (
	"sort"
	"sync"
)

// unreachableAfter is how many attempts in a row must fail before an
// answer for a host that answered earlier to count as unreachable again:
// one reset or malformed response from a host that serves its pages is
// that page's failure, retried as any page's is, not the host's; three in
// a row, and nothing since, is a host that went away.
const unreachableAfter = 3

// hostReach follows whether each host the crawler asked answers, for the
// summary's unreachable hosts (Summary.Unreachable). A host is unreachable
// when its latest attempt got no whole HTTP answer (a connection refused
// or reset, a malformed response, a time-out, a body cut short) and
// either no attempt ever got an answer from it, or its last
// unreachableAfter attempts all failed so. Any HTTP answer counts, an error status too:
// the host is there. It holds a few bytes per host asked, as the
// frontier holds a queue per host.
//
// It is kept across the runs of one crawler (deltaq serve, deltaq run):
// a host that served its pages in an earlier run answers, and one failure
// now is that page's, not the host's. Each attempt is stamped with its
// run, and a run names only the hosts it asked itself.
type hostReach struct {
	mu struct {
		sync.Mutex
		hosts map[string]*reachState
	}
}

type reachState struct {
	answered bool   // some attempt got an HTTP answer
	failed   int    // the latest attempts, in a row, that got none
	why      string // the first failure of those
	run      uint64 // the run of the latest attempt (runNotes.seq)
}

// stateLocked returns host's entry, made on first use and stamped with
// run; the caller holds mu.
func (r *hostReach) stateLocked(host string, run uint64) *reachState {
	if r.mu.hosts == nil {
		r.mu.hosts = map[string]*reachState{}
	}
	s, ok := r.mu.hosts[host]
	if !ok {
		s = &reachState{}
		r.mu.hosts[host] = s
	}
	s.run = run
	return s
}

// answer records an HTTP answer from host in run.
func (r *hostReach) answer(host string, run uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stateLocked(host, run)
	s.answered, s.failed, s.why = true, 0, ""
}

// fail records an attempt at host in run that got no answer, and why.
func (r *hostReach) fail(host, why string, run uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stateLocked(host, run)
	if s.failed == 0 {
		s.why = why
	}
	s.failed++
}

// unreachable names the hosts run asked that are unreachable now, each
// with the first failure of its latest run of them: at most
// maxNotedHosts, in host order, and how many more there are.
func (r *hostReach) unreachable(run uint64) (map[string]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var hosts []string
	for h, s := range r.mu.hosts {
		if s.run == run && s.failed > 0 && (!s.answered || s.failed >= unreachableAfter) {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return nil, 0
	}
	sort.Strings(hosts)
	named := map[string]string{}
	for _, h := range hosts[:min(len(hosts), maxNotedHosts)] {
		named[h] = r.mu.hosts[h].why
	}
	return named, len(hosts) - len(named)
}
