package adsim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// CTRItem is one line of ads/obd-item-ctr.tsv: an item of the Open Bandit
// Dataset shown by a uniform-random policy, with its impressions and
// clicks (shared/data README §5).
type CTRItem struct {
	Campaign    string
	Item        int
	Impressions int
	Clicks      int
}

// ReadCTRItems reads the CTR file; see ParseCTRItems.
func ReadCTRItems(path string) ([]CTRItem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("adsim: %w", err)
	}
	defer f.Close()
	items, err := ParseCTRItems(f)
	if err != nil {
		return nil, fmt.Errorf("adsim: read %s: %w", path, err)
	}
	return items, nil
}

// maxImpressions bounds one item's impressions (the real file's are
// about 300), so that the pooled sums cannot overflow.
const maxImpressions = 1 << 40

// ParseCTRItems reads campaign<TAB>item_id<TAB>impressions<TAB>clicks<TAB>ctr
// lines after one header line. An item given twice, a ctr that is not
// clicks/impressions to its 6 decimals, and a file without a single click
// (every true CTR would be 0) are refused.
func ParseCTRItems(r io.Reader) ([]CTRItem, error) {
	sc := bufio.NewScanner(r)
	var items []CTRItem
	type key struct {
		campaign string
		item     int
	}
	seen := map[key]int{} // (campaign, item) → the line that gave it
	line, clicks := 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if line == 1 {
			if !strings.HasPrefix(text, "campaign\titem_id\timpressions\tclicks") {
				return nil, fmt.Errorf("line 1: header %q, want campaign<TAB>item_id<TAB>impressions<TAB>clicks<TAB>ctr", text)
			}
			continue
		}
		if text == "" {
			continue
		}
		f := strings.Split(text, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("line %d: %d fields, want 5", line, len(f))
		}
		it := CTRItem{Campaign: f[0]}
		var e1, e2, e3 error
		it.Item, e1 = strconv.Atoi(f[1])
		it.Impressions, e2 = strconv.Atoi(f[2])
		it.Clicks, e3 = strconv.Atoi(f[3])
		if e1 != nil || e2 != nil || e3 != nil || it.Impressions <= 0 || it.Clicks < 0 || it.Clicks > it.Impressions {
			return nil, fmt.Errorf("line %d: want item, impressions > 0 and 0 <= clicks <= impressions", line)
		}
		if it.Impressions > maxImpressions {
			return nil, fmt.Errorf("line %d: impressions %d: must be at most %d", line, it.Impressions, maxImpressions)
		}
		ctr, err := strconv.ParseFloat(f[4], 64)
		if want := float64(it.Clicks) / float64(it.Impressions); err != nil || math.IsNaN(ctr) || math.Abs(ctr-want) > 1e-6 {
			return nil, fmt.Errorf("line %d: ctr %q: must be clicks/impressions = %.6f", line, f[4], want)
		}
		k := key{it.Campaign, it.Item}
		if at, dup := seen[k]; dup {
			return nil, fmt.Errorf("line %d: campaign %s item %d again (first on line %d)", line, it.Campaign, it.Item, at)
		}
		seen[k] = line
		clicks += it.Clicks
		items = append(items, it)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("line %d: longer than %d bytes, where a line is a campaign, three counts and a rate", line+1, bufio.MaxScanTokenSize)
	} else if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("no items")
	}
	if clicks == 0 {
		return nil, fmt.Errorf("%d items, no click in any: the pooled CTR, and every true CTR drawn, would be 0", len(items))
	}
	return items, nil
}

// CTRDistribution is the "true CTR distribution" of §6.7.1 built from the
// OBD items. An item's clicks/impressions is a noisy estimate (a quarter
// of the items have no click at all in ~250 impressions), so each item is
// smoothed with a Beta prior whose mean is the pooled CTR of all items and
// whose strength is Strength pseudo-impressions: item i's CTR is
// Beta(μ·S + clicks_i, (1 − μ)·S + impressions_i − clicks_i). A true CTR
// is drawn by picking an item uniformly and sampling its posterior, so the
// draws spread as much as the data allow rather than collapsing zero-click
// items to 0.
type CTRDistribution struct {
	Items    []CTRItem
	Mean     float64 // μ, the pooled CTR Σclicks/Σimpressions
	Strength float64 // S = α0 + β0
}

// NewCTRDistribution smooths items with a prior of the pooled mean and the
// given strength.
func NewCTRDistribution(items []CTRItem, strength float64) *CTRDistribution {
	var imp, clk int
	for _, it := range items {
		imp += it.Impressions
		clk += it.Clicks
	}
	return &CTRDistribution{Items: items, Mean: float64(clk) / float64(imp), Strength: strength}
}

func (d *CTRDistribution) posterior(it CTRItem) (a, b float64) {
	return d.Mean*d.Strength + float64(it.Clicks), (1-d.Mean)*d.Strength + float64(it.Impressions-it.Clicks)
}

// PosteriorMean is item i's smoothed CTR.
func (d *CTRDistribution) PosteriorMean(i int) float64 {
	a, b := d.posterior(d.Items[i])
	return a / (a + b)
}

// Draw samples one true CTR c_ij.
func (d *CTRDistribution) Draw(rng *rand.Rand) float64 {
	a, b := d.posterior(d.Items[rng.IntN(len(d.Items))])
	return betaSample(rng, a, b)
}

// BetweenItemVariance is the method-of-moments estimate of the variance of
// the items' true CTRs: the variance of the observed CTRs minus the mean
// binomial sampling variance. Near zero or negative means the file cannot
// tell its items apart.
func (d *CTRDistribution) BetweenItemVariance() float64 {
	n := float64(len(d.Items))
	var mean, sq, noise float64
	for _, it := range d.Items {
		mean += float64(it.Clicks) / float64(it.Impressions) / n
	}
	for _, it := range d.Items {
		r := float64(it.Clicks) / float64(it.Impressions)
		sq += (r - mean) * (r - mean) / n
		noise += d.Mean * (1 - d.Mean) / float64(it.Impressions) / n
	}
	return sq - noise
}
