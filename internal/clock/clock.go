// Package clock lets the same crawl, frontier and budget code run in wall
// time and in replayed evaluation time.
//
// Components take a Clock instead of calling time.Now or time.Sleep. The
// binary passes Real; the evaluation harness passes a *Manual that it moves
// from one archive week to the next; tests use either, or Real inside a
// testing/synctest bubble.
//
//	c := clock.NewManual(week0)
//	go crawl(ctx, c)
//	c.Set(week1) // wakes every waiter whose deadline has passed
package clock

import (
	"context"
	"sync"
	"time"
)

// Clock tells the time and waits for it.
type Clock interface {
	Now() time.Time
	// WaitUntil blocks until the clock reaches t or ctx is done, and returns
	// ctx.Err() in the latter case.
	WaitUntil(ctx context.Context, t time.Time) error
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// WaitUntil sleeps until t, or returns early when ctx is done.
func (Real) WaitUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Manual is a clock that moves only when told to. Waiters sleep until Set or
// Advance moves the time past their deadline.
type Manual struct {
	mu struct {
		sync.Mutex
		now     time.Time
		changed chan struct{} // closed and replaced on every move
	}
}

// NewManual returns a Manual clock reading start.
func NewManual(start time.Time) *Manual {
	m := &Manual{}
	m.mu.now = start
	m.mu.changed = make(chan struct{})
	return m
}

// Now returns the clock's current reading.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mu.now
}

// Set moves the clock to t. Moving it backwards is allowed (a replay may
// restart) but wakes no one.
func (m *Manual) Set(t time.Time) {
	m.mu.Lock()
	m.mu.now = t
	close(m.mu.changed)
	m.mu.changed = make(chan struct{})
	m.mu.Unlock()
}

// Advance moves the clock forward by d.
func (m *Manual) Advance(d time.Duration) { m.Set(m.Now().Add(d)) }

// WaitUntil blocks until the clock has been moved to t or later.
func (m *Manual) WaitUntil(ctx context.Context, t time.Time) error {
	for {
		m.mu.Lock()
		now, changed := m.mu.now, m.mu.changed
		m.mu.Unlock()
		if !now.Before(t) {
			return ctx.Err()
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Reporting is a Manual clock that sends each deadline waited for on Waits
// before it waits, so that a test knows when a loop has finished a round
// and until when it sleeps.
type Reporting struct {
	*Manual
	Waits chan time.Time
}

// NewReporting returns a Reporting clock reading start; Waits holds up to
// buffer deadlines no one has received.
func NewReporting(start time.Time, buffer int) Reporting {
	return Reporting{Manual: NewManual(start), Waits: make(chan time.Time, buffer)}
}

// WaitUntil reports t, then waits as Manual does.
func (c Reporting) WaitUntil(ctx context.Context, t time.Time) error {
	select {
	case c.Waits <- t:
	case <-ctx.Done():
		return ctx.Err()
	}
	return c.Manual.WaitUntil(ctx, t)
}

// Later returns the later of a and b.
func Later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Earlier returns the earlier of a and b.
func Earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
