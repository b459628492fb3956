package ranksim

import "fmt"

// Rule is how a ranking treats pages (§5.5).
type Rule int

const (
	// Nonrandomized ranks by popularity alone; pages of equal popularity
	// (in practice: zero) in order of age, oldest first, so a new page
	// enters at the bottom of the list.
	Nonrandomized Rule = iota
	// Selective promotes the pages with zero awareness (§5.5 rule b).
	Selective
	// Uniform puts every page in the pool independently with probability
	// r (§5.5 rule a).
	Uniform
	// Ideal ranks by true quality: the offline optimum of §5.4.3 that QPC
	// is normalized by.
	Ideal
)

func (r Rule) String() string {
	switch r {
	case Nonrandomized:
		return "nonrandomized"
	case Selective:
		return "selective"
	case Uniform:
		return "uniform"
	case Ideal:
		return "ideal"
	}
	return fmt.Sprintf("rule(%d)", int(r))
}

// Policy is a ranking method: a rule with the starting point k and the
// degree of randomization r of §5.5.
type Policy struct {
	Rule Rule
	K    int
	R    float64
}

func (p Policy) String() string {
	if p.Rule == Nonrandomized || p.Rule == Ideal {
		return p.Rule.String()
	}
	return fmt.Sprintf("%s k=%d r=%g", p.Rule, p.K, p.R)
}

// normalized maps degenerate randomized policies to the ranking they are:
// r = 0 promotes nothing.
func (p Policy) normalized() Policy {
	if (p.Rule == Selective || p.Rule == Uniform) && p.R == 0 {
		return Policy{Rule: Nonrandomized}
	}
	if p.Rule == Nonrandomized || p.Rule == Ideal {
		return Policy{Rule: p.Rule}
	}
	return p
}
