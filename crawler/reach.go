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
}

// stateLocked returns host's entry, made on first use; the caller holds mu.
func (r *hostReach) stateLocked(host string) *reachState {
	if r.mu.hosts == nil {
		r.mu.hosts = map[string]*reachState{}
	}
	s, ok := r.mu.hosts[host]
	if !ok {
		s = &reachState{}
		r.mu.hosts[host] = s
	}
	return s
}

// answer records an HTTP answer from host.
func (r *hostReach) answer(host string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stateLocked(host)
	s.answered, s.failed, s.why = true, 0, ""
}

// fail records an attempt at host that got no answer, and why.
func (r *hostReach) fail(host, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stateLocked(host)
	if s.failed == 0 {
		s.why = why
	}
	s.failed++
}

// unreachable names the hosts unreachable now, each with the first
// failure of its latest run of them: at most maxNotedHosts, in host
// order, and how many more there are.
func (r *hostReach) unreachable() (map[string]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var hosts []string
	for h, s := range r.mu.hosts {
		if s.failed > 0 && (!s.answered || s.failed >= unreachableAfter) {
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
