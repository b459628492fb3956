// Package ads decides which ads a query shows and what a click costs: it
// owns advertisers, ads, budgets, the MIX/BMIX family of selection
// policies, and click accounting (thesis ch. 6).
//
// Thesis sections implemented:
//
//   - §6.1 the model: advertisers A_i with optional daily budgets d_i; ads
//     a_ij targeting query phrases Q_j with bids b_ij; up to C ads per
//     query (ads.per_query). An Ad may target several phrases; each
//     (ad, phrase) pair is one a_ij with its own counts n_ij, s_ij.
//   - §6.5 MIX (mix.go), §6.6.3 BMIX (bmix.go), BMIX-E (bmixe.go), BMIX-T
//     (bmixt.go, the throttle φ(d′) = 1 − e^(−d′/d)), BMIX-ET (bmixet.go),
//     §6.7 GREEDY (greedy.go). Policies are pure functions over Candidate
//     snapshots; Select picks the top C among advertisers with budget left
//     (BPOL step 1, §6.6.1). The offline simulation eval/adsim calls the
//     same code.
//   - §6.8.1 Beta priors: ĉ = (α + s)/(α + β + n), set per ad by SetPrior.
//   - §6.8.3 ads submitted and revoked at any time: an ad competes from the
//     query after SubmitAd and never after RevokeAd.
//   - Estimates (n_ij, s_ij) carry over from day to day (§6.6.3); budgets
//     reset at midnight in the advertiser's time zone (ads.time_zone by
//     default).
//
// Money is integer micros (Money). A click charges the bid carried in its
// signed URL, capped by what remains of the day's budget (Charge); the
// advertiser's charges are serialized and each commits atomically, so the
// spend never exceeds d_i, also under concurrent clicks and across
// restarts. A repeated click on one impression is charged once.
//
// State. The repository bucket "ads" is the truth (keys in codec.go):
//
//	v/<advertiser>            advertiser: name, API key hash, budget, time zone
//	a/<ad>                    ad: text, URL, targets and bids, prior, status, times
//	o/<advertiser>/<ad>       ownership index (empty value)
//	s/<ad>/<phrase>           n_ij, s_ij, spend of an (ad, phrase) pair
//	q/<phrase>                n_j: queries of a phrase, in total and today
//	d/<advertiser>            spend today and the next reset
//	x/<issued>/<impression>   a clicked impression, kept for ads.click_ttl
//	n/advertiser, n/ad        id counters; secret: the generated HMAC key
//
// In memory: every advertiser; the active ads and the index phrase →
// (ad, phrase) pairs, bounded by the number of active ads times
// ads.max_phrases_per_ad and rebuilt from the repository by Open; up to
// ads.recent_clicks clicked impression ids. Impression and query counts
// are written every ads.flush_interval (Run) and by Close; clicks, spend,
// budgets and ad changes are written at once.
//
// Serving: Select(ctx, phrase, c) returns ads with signed click URLs
// (ClickPath); Click verifies and charges one. Signing and verifying click
// URLs is clickSigner's (token.go), which holds only the key; the limits on
// ads, bids and budgets are checked by Config (validate.go); Store keeps
// the state and its locks. The HTTP routes (the click
// redirect and the advertiser API) belong to package web, which calls the
// methods here. NormalizePhrase is the one phrase normalization.
//
//	store, err := ads.Open(ctx, db, cfg.Ads, ads.Options{Logger: logger})
//	go store.Run(ctx) // periodic flush
//	shown, err := store.Select(ctx, query, 0)
//	res, err := store.Click(ctx, rawQuery) // charge, then redirect to res.URL
package ads
