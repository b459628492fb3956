package crawler

import (
	"errors"
	"maps"
	"sync"
)

// maxRefusedHosts bounds the hosts a crawl remembers as refused by the
// address guard; more are counted, not named.
const maxRefusedHosts = 64

// refusals are the hosts the address guard refused during a crawl, so the
// summary can say why nothing was fetched from them and how to allow it.
type refusals struct {
	mu struct {
		sync.Mutex
		hosts map[string]string // host → why, e.g. "127.0.0.1:8080 is a loopback address"
		more  int               // refused hosts beyond maxRefusedHosts
	}
}

// add records that a connection to host was refused with err.
func (r *refusals) add(host string, err error) {
	why := "a non-public address"
	var re *RefusedError
	if errors.As(err, &re) {
		why = re.Addr + " is a " + re.Kind + " address"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mu.hosts == nil {
		r.mu.hosts = map[string]string{}
	}
	if _, ok := r.mu.hosts[host]; ok {
		return
	}
	if len(r.mu.hosts) >= maxRefusedHosts {
		r.mu.more++
		return
	}
	r.mu.hosts[host] = why
}

// snapshot copies the refused hosts and the count of those not named.
func (r *refusals) snapshot() (map[string]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.mu.hosts), r.mu.more
}

// refused reports whether host was refused.
func (r *refusals) refused(host string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.mu.hosts[host]
	return ok
}
