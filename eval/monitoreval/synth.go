package monitoreval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/deltaq/deltaq/internal/bounds"
	"github.com/deltaq/deltaq/monitor"
)

// minutesPerDay converts auction durations, given in days, to instants.
const minutesPerDay = 1440

// Upper bounds of the synthetic web, far beyond the paper's 7,550 pages
// over a day of minutes: every run walks every page at every instant.
const (
	maxPages    = 1_000_000
	maxInstants = 1_000_000 // about two years of minutes
	// A listing of ten years outlasts the longest run five times over;
	// its minutes (1440 × days) stay far inside an int.
	maxDurationDays = 3650
	// maxMeanBids bounds the geometric draw of each page's bids.
	maxMeanBids = 10_000
)

// AuctionConfig shapes the SYNTHETIC auction web standing in for the
// paper's 7,550 auction pages (§5): one day of one-minute instants; each
// page is one auction live at some time in that day, its bid history
// growing by a row per bid. The shape follows the published record of
// eBay bidding (see auction).
type AuctionConfig struct {
	Pages    int `mapstructure:"pages"`
	Instants int `mapstructure:"instants"`
	// Durations are the listing lengths offered, in days, and Shares how
	// many of the auctions run each (same order, summing to 1).
	Durations []int     `mapstructure:"durations"`
	Shares    []float64 `mapstructure:"shares"`
	// MeanBids is the mean of the geometric number of bids per auction.
	MeanBids float64 `mapstructure:"mean_bids"`
	// Stage is the fraction of an auction's duration its opening and its
	// closing stage each last; Early and Late the shares of its bids placed
	// in them, the rest spread evenly over the middle.
	Stage float64 `mapstructure:"stage"`
	Early float64 `mapstructure:"early"`
	Late  float64 `mapstructure:"late"`
	// Snipe is the power-law exponent of the closing stage: the share of
	// its bids in the last x of it is x^Snipe.
	Snipe float64 `mapstructure:"snipe"`
}

// validate names the bad auction keys.
func (a AuctionConfig) validate(report *bounds.Report) {
	report.Add("auction.pages", a.Pages, bounds.Within(a.Pages, 1, maxPages))
	report.Add("auction.instants", a.Instants, bounds.Within(a.Instants, 2, maxInstants))
	if len(a.Durations) == 0 || len(a.Durations) != len(a.Shares) {
		report.Add("auction.durations", a.Durations, fmt.Sprintf("need one share each (auction.shares has %d)", len(a.Shares)))
	}
	sum := 0.0
	for _, s := range a.Shares {
		if s < 0 {
			report.Add("auction.shares", s, "must be ≥ 0")
		}
		sum += s
	}
	if math.Abs(sum-1) > 1e-6 {
		report.Add("auction.shares", a.Shares, "must sum to 1")
	}
	for _, d := range a.Durations {
		report.Add("auction.durations", d, bounds.Within(d, 1, maxDurationDays))
	}
	validMeanBids(report, "auction.mean_bids", a.MeanBids)
	if !(a.Stage > 0 && a.Stage <= 0.5) {
		report.Add("auction.stage", a.Stage, "must be in (0, 0.5]")
	}
	if a.Early < 0 || a.Late < 0 || a.Early+a.Late > 1 {
		report.Add("auction.early/late", fmt.Sprintf("%g/%g", a.Early, a.Late), "must be ≥ 0 and sum to at most 1")
	}
	// No upper bound: a draw is 1 − stage·u^(1/snipe), in the stage
	// for any snipe > 0.
	if !(a.Snipe > 0) {
		report.Add("auction.snipe", a.Snipe, "must be > 0")
	}
}

// validMeanBids reports a mean number of bids per auction outside
// (0, maxMeanBids] (eval.monitor.auction.mean_bids, bids_sweep).
func validMeanBids(report *bounds.Report, key string, b float64) {
	if !(b > 0 && b <= maxMeanBids) {
		report.Add(key, b, fmt.Sprintf("must be in (0, %d]", maxMeanBids))
	}
}

// auction draws the synthetic web, independently per page, after the
// empirical record of eBay's hard-close auctions:
//   - the page is an auction live at some time in the day: its duration is
//     one of eBay's listing lengths (1, 3, 5, 7, 10 days), its end uniform
//     over the day and the duration after it, so a D-day auction ends within
//     the day with probability 1/(D+1);
//   - its number of bids is geometric with mean MeanBids (many auctions draw
//     none or a few, some dozens; Bajari & Hortaçsu 2003 report about three
//     bidders per auction, and bidders often bid more than once, Ockenfels &
//     Roth 2006);
//   - bids arrive in three stages (Shmueli, Russo & Jank 2007, the BARISTA
//     process): an early burst in the opening Stage of the auction, a lull
//     over the middle, and a closing surge whose time before the end is a
//     power law, scale-free down to the last seconds (Roth & Ockenfels 2002,
//     who find last bids distributed by a power law and a large share of
//     eBay auctions bid on in their last five minutes).
//
// Bids inside the day are kept; several in one minute are one change.
func auction(cfg AuctionConfig, life monitor.Life, rng *rand.Rand) *instance {
	in := &instance{name: "SYNTHETIC auction web, " + lifeTitle(life), n: cfg.Instants}
	keep := cfg.MeanBids / (1 + cfg.MeanBids) // geometric: P(n) = (1−keep)·keep^n
	for i := range cfg.Pages {
		d := float64(minutesPerDay * pick(cfg.Durations, cfg.Shares, rng))
		end := rng.Float64() * (d + float64(cfg.Instants))
		bids := int(math.Log(1-rng.Float64()) / math.Log(keep))
		var changes []int
		for range bids {
			if j := int(math.Ceil(end - d + bidAt(cfg, rng)*d)); j >= 1 && j <= cfg.Instants {
				changes = append(changes, j)
			}
		}
		slices.Sort(changes)
		in.pages = append(in.pages, page{url: fmt.Sprintf("auction/%d", i), life: life, changes: slices.Compact(changes)})
	}
	return in
}

// bidAt draws one bid's time as the elapsed fraction of its auction, from
// the three stages.
func bidAt(cfg AuctionConfig, rng *rand.Rand) float64 {
	switch s := rng.Float64(); {
	case s < cfg.Early:
		return cfg.Stage * rng.Float64()
	case s < cfg.Early+cfg.Late:
		return 1 - cfg.Stage*math.Pow(rng.Float64(), 1/cfg.Snipe)
	default:
		return cfg.Stage + (1-2*cfg.Stage)*rng.Float64()
	}
}

// pick draws one of values with the given shares.
func pick(values []int, shares []float64, rng *rand.Rand) int {
	x := rng.Float64()
	for i, s := range shares {
		if x < s {
			return values[i]
		}
		x -= s
	}
	return values[len(values)-1]
}
