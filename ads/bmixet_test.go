package ads

import "testing"

func TestBMIXETPriority(t *testing.T) {
	c := seen10()
	c.Budgeted, c.Budget, c.Remaining = true, 100, 50
	// BMIX-E priority with b = (1 − e^(−1/2))·3.
	near(t, "P", BMIXET{}.Priority(&c, QueryOf(100)), 0.6366023335562265)
}
