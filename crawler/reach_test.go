package crawler

import "testing"

// TestHostReachRule: a host is unreachable when its latest attempt got
// no answer and it never answered, or its last unreachableAfter attempts
// all failed; the reason is the first failure of that run.
func TestHostReachRule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		attempts string // a: answered, f: failed before an answer, oldest first
		want     bool
	}{
		{"one failure, never answered", "f", true},
		{"failures only", "fff", true},
		{"answered once", "a", false},
		{"answered, then one failure", "aaaaf", false},
		{"answered, then two failures", "aaff", false},
		{"answered, then three failures", "afff", true},
		{"failed, then answered", "fffa", false},
		{"answered between failures", "affaf", false},
	} {
		var r hostReach
		for i, c := range tc.attempts {
			if c == 'a' {
				r.answer("h", 1)
			} else {
				r.fail("h", string(rune('0'+i)), 1)
			}
		}
		got, more := r.unreachable(1)
		why, ok := got["h"]
		if ok != tc.want || more != 0 {
			t.Errorf("%s (%s): unreachable %v (%d more), want %v", tc.name, tc.attempts, ok, more, tc.want)
		}
		if ok {
			if first := len(stripF(tc.attempts)); why != string(rune('0'+first)) {
				t.Errorf("%s: why %q, want the first failure of the latest run, attempt %d", tc.name, why, first)
			}
		}
	}
}

// stripF is attempts without its trailing failures.
func stripF(attempts string) string {
	i := len(attempts)
	for i > 0 && attempts[i-1] == 'f' {
		i--
	}
	return attempts[:i]
}

// TestHostReachNamesABoundedSet: past maxNotedHosts, hosts are counted.
func TestHostReachNamesABoundedSet(t *testing.T) {
	var r hostReach
	for i := range maxNotedHosts + 3 {
		r.fail(string(rune('A'+i%26))+string(rune('a'+i/26)), "refused", 1)
	}
	named, more := r.unreachable(1)
	if len(named) != maxNotedHosts || more != 3 {
		t.Errorf("%d hosts unreachable: %d named, %d more; want %d and 3", maxNotedHosts+3, len(named), more, maxNotedHosts)
	}
}

// TestHostReachAcrossRuns: a run names only the hosts it asked, while
// what earlier runs saw still decides whether a host answers.
func TestHostReachAcrossRuns(t *testing.T) {
	var r hostReach
	r.fail("gone", "refused", 1)
	r.answer("served", 1)
	r.fail("served", "reset", 2)
	if named, _ := r.unreachable(2); len(named) != 0 {
		t.Errorf("run 2 names %v: want neither the host only run 1 asked nor one that served pages in run 1 and failed once", named)
	}
	r.fail("gone", "refused", 3)
	if named, _ := r.unreachable(3); named["gone"] != "refused" {
		t.Errorf("run 3 names %v, want gone, asked again and failing still", named)
	}
}
