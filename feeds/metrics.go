package feeds

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
)

// delayBuckets span a minute to a week, in seconds.
var delayBuckets = []float64{60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400}

// Collector exports, at each scrape, the feeds' recent delays (first seen
// − posted, the last 64 per feed) as a histogram, and their polls and 304s.
func (s *Store) Collector() prometheus.Collector { return storeCollector{s} }

type storeCollector struct{ s *Store }

var (
	delayDesc = prometheus.NewDesc("deltaq_feed_delay_seconds",
		"Delay from posting to first poll that saw it, over each feed's recent postings.", nil, nil)
	feedsDesc       = prometheus.NewDesc("deltaq_feeds", "Subscribed feeds.", nil, nil)
	pollsDesc       = prometheus.NewDesc("deltaq_feed_polls_total", "Polls of all feeds recorded.", nil, nil)
	notModifiedDesc = prometheus.NewDesc("deltaq_feed_not_modified_total", "Polls answered 304 Not Modified.", nil, nil)
)

func (c storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- delayDesc
	ch <- feedsDesc
	ch <- pollsDesc
	ch <- notModifiedDesc
}

func (c storeCollector) Collect(ch chan<- prometheus.Metric) {
	list, err := c.s.Subscriptions(context.Background())
	if err != nil {
		ch <- prometheus.NewInvalidMetric(delayDesc, err)
		return
	}
	counts := make(map[float64]uint64, len(delayBuckets))
	var n uint64
	var sum float64
	polls, notModified := 0, 0
	for _, f := range list {
		polls += f.Fetches
		notModified += f.NotModified
		for _, d := range f.Delays {
			v := d.Seconds()
			n++
			sum += v
			for _, b := range delayBuckets {
				if v <= b {
					counts[b]++
				}
			}
		}
	}
	ch <- prometheus.MustNewConstHistogram(delayDesc, n, sum, counts)
	ch <- prometheus.MustNewConstMetric(feedsDesc, prometheus.GaugeValue, float64(len(list)))
	ch <- prometheus.MustNewConstMetric(pollsDesc, prometheus.CounterValue, float64(polls))
	ch <- prometheus.MustNewConstMetric(notModifiedDesc, prometheus.CounterValue, float64(notModified))
}
