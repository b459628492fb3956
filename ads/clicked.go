package ads

import "sync"

// recentSet remembers the most recently clicked impression ids, at most
// capacity of them (ads.recent_clicks), oldest forgotten first. It is a
// cache in front of the repository's x/ records, which are the truth until
// ads.click_ttl has passed.
type recentSet struct {
	mu   sync.Mutex
	ring []string
	next int
	set  map[string]struct{}
}

func newRecentSet(capacity int) *recentSet {
	return &recentSet{ring: make([]string, capacity), set: make(map[string]struct{}, capacity)}
}

func (r *recentSet) contains(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.set[id]
	return ok
}

func (r *recentSet) add(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.set[id]; ok {
		return
	}
	if old := r.ring[r.next]; old != "" {
		delete(r.set, old)
	}
	r.ring[r.next] = id
	r.set[id] = struct{}{}
	r.next = (r.next + 1) % len(r.ring)
}

func (r *recentSet) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.set)
}
