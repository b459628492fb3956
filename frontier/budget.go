package frontier

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// budget counts the fetches of the current period. Re-fetches planned for
// the period hold a reservation, so first fetches of new URLs cannot spend
// the budget before the planned re-fetches come due; whatever a plan does
// not reserve is free for new URLs.
type budget struct {
	limit    int
	period   time.Duration
	start    time.Time
	used     int
	reserved [repo.NumClasses]int // planned entries of this period not yet handed out
	byClass  [repo.NumClasses]int // handed out this period, per class
	// hold keeps the monitoring share of the period's instants still to
	// come from new URLs; each instant releases what its picks leave
	// (monitor.go).
	hold int
}

// roll starts a new period if now is past the current one, reporting
// whether it did. Periods are aligned to multiples of the period length.
func (b *budget) roll(now time.Time) bool {
	if !b.start.IsZero() && now.Before(b.start.Add(b.period)) {
		return false
	}
	b.start = now.Truncate(b.period)
	b.used = 0
	b.reserved = [repo.NumClasses]int{}
	b.byClass = [repo.NumClasses]int{}
	b.hold = 0
	return true
}

// end is when the current period ends.
func (b *budget) end() time.Time { return b.start.Add(b.period) }

// admits reports whether an entry of class may be handed out now.
func (b *budget) admits(c repo.QueueClass) bool {
	if b.used >= b.limit {
		return false
	}
	return c != repo.ClassNew || b.free() > 0
}

// free is what is left of the period's budget after fetches and
// reservations.
func (b *budget) free() int {
	free := b.limit - b.used - b.hold
	for _, r := range b.reserved {
		free -= r
	}
	return free
}

// take counts a fetch of class c handed out, and reports whether it
// consumed one of the class's reservations.
func (b *budget) take(c repo.QueueClass) (reserved bool) {
	b.used++
	b.byClass[c]++
	if b.reserved[c] > 0 {
		b.reserved[c]--
		return true
	}
	return false
}

// give back a fetch that did not happen (a deferred job), with the
// reservation it consumed: otherwise a first fetch of a new URL could take
// the slot of the planned re-fetch that is still queued, and which of the
// two a period fetches would depend on timing.
func (b *budget) giveBack(c repo.QueueClass, reserved bool) {
	if b.used > 0 {
		b.used--
	}
	if b.byClass[c] > 0 {
		b.byClass[c]--
	}
	if reserved {
		b.reserved[c]++
	}
}

// reserve holds n fetches of this period for planned entries of class c,
// capped so that reservations never exceed what is left.
func (b *budget) reserve(c repo.QueueClass, n int) {
	b.reserved[c] += max(0, min(n, b.free()))
}

// usage is the persisted count of committed fetches per class in the period
// starting at start.
type usage struct {
	start   time.Time
	byClass [repo.NumClasses]int
}

func (u usage) encode() []byte {
	b := binary.AppendVarint(nil, u.start.UnixNano())
	for _, n := range u.byClass {
		b = binary.AppendUvarint(b, uint64(n))
	}
	return b
}

func decodeUsage(b []byte) (usage, error) {
	var u usage
	start, n := binary.Varint(b)
	if n <= 0 {
		return u, errors.New("bad period start")
	}
	u.start = time.Unix(0, start).UTC()
	b = b[n:]
	for c := range u.byClass {
		if len(b) == 0 {
			break // written before a class was added: it counted nothing
		}
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return u, errors.New("bad count")
		}
		u.byClass[c] = int(v)
		b = b[n:]
	}
	return u, nil
}
