package clock

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestManualWaiterWakesOnlyWhenItsDeadlinePasses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Date(2023, 1, 30, 0, 0, 0, 0, time.UTC)
		c := NewManual(start)
		woke := false
		go func() {
			if err := c.WaitUntil(t.Context(), start.Add(time.Hour)); err != nil {
				t.Errorf("WaitUntil = %v, want nil", err)
			}
			woke = true
		}()

		c.Advance(30 * time.Minute)
		synctest.Wait()
		if woke {
			t.Fatal("waiter woke at +30m, before its +1h deadline")
		}
		c.Advance(30 * time.Minute)
		synctest.Wait()
		if !woke {
			t.Fatal("waiter still asleep at +1h")
		}
	})
}

func TestManualWaitEndsWithContext(t *testing.T) {
	c := NewManual(time.Unix(0, 0))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.WaitUntil(ctx, time.Unix(100, 0)); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitUntil = %v, want context.Canceled", err)
	}
}

func TestRealWaitUntilSleepsTheDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := (Real{}).WaitUntil(t.Context(), start.Add(5*time.Second)); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 5*time.Second {
			t.Fatalf("slept %v, want 5s", got)
		}
	})
}

func TestReportingSendsEachDeadlineBeforeWaiting(t *testing.T) {
	start := time.Unix(0, 0)
	c := NewReporting(start, 0)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.WaitUntil(ctx, start.Add(time.Hour)) }()
	if got := <-c.Waits; !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("reported %v, want %v", got, start.Add(time.Hour))
	}
	c.Advance(time.Hour)
	if err := <-done; err != nil {
		t.Fatalf("WaitUntil = %v after the deadline passed, want nil", err)
	}
	// No one receives the second report: the wait still ends with ctx.
	go func() { done <- c.WaitUntil(ctx, start.Add(2*time.Hour)) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitUntil = %v, want context.Canceled", err)
	}
}
