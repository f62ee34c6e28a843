//! The payouts log's checks: the locked table against what came in (or a lottery's draw), every
//! award against the table (or, after a deal, the agreed share), the books' transfers of a
//! flight, and the tournament paid once.

use super::*;

/// Sum of the bands' prizes for places `from..=to`.
fn bands_sum(bands: &[PrizeBand], from: u32, to: u32) -> u64 {
    bands.iter().map(|b| u64::from(b.to.min(to).saturating_add(1).saturating_sub(b.from.max(from))) * b.amount).sum()
}

pub(crate) fn payouts(s: &mut State, c: &mut Checks, e: PayoutEvent, seq: u64) {
    match e {
        PayoutEvent::PayoutTableLocked { contributions, guarantee, overlay, pool, bands, cause, .. } => {
            if cause == LockCause::LotteryDrawn {
                // A lottery game's pool is the drawn multiple of the buy-in, not what came in
                // (the operator keeps the difference or pays the overlay): the draw's pool.
                match &s.lottery_pool {
                    Some((drawn, prizes, at)) => {
                        let by_place: Vec<u64> = (1..=prizes.len() as u32).map(|p| bands_sum(&bands, p, p)).collect();
                        if *drawn != pool.amount || by_place != *prizes {
                            diff(
                                &mut c.money,
                                format!(
                                    "the locked table ({} in {by_place:?}) is not the lottery's draw ({drawn} in {prizes:?})",
                                    pool.amount
                                ),
                                vec![*at, seq],
                            );
                        }
                    }
                    None => diff(&mut c.money, "a table locked on a lottery draw with no draw before it".to_owned(), vec![seq]),
                }
            } else if contributions.amount.checked_add(overlay.amount) != Some(pool.amount) {
                diff(
                    &mut c.money,
                    format!("the locked pool {} ≠ contributions {} + overlay {}", pool.amount, contributions.amount, overlay.amount),
                    vec![seq],
                );
            }
            let shortfall = guarantee.map_or(0, |g| g.amount.saturating_sub(contributions.amount));
            if cause != LockCause::LotteryDrawn && overlay.amount != shortfall {
                diff(&mut c.money, format!("the overlay is {}, the guarantee's shortfall {shortfall}", overlay.amount), vec![seq]);
            }
            s.contributions = Some((contributions.amount, seq));
            s.lottery_lock |= cause == LockCause::LotteryDrawn;
            let bands_total = bands_sum(&bands, 1, u32::MAX);
            if bands_total != pool.amount {
                diff(&mut c.money, format!("the locked table's prizes sum to {bands_total}, its pool is {}", pool.amount), vec![seq]);
            }
            s.table = Some((bands, pool.amount, seq));
        }
        PayoutEvent::PlacesAwarded { awards, .. } => {
            let mut groups: BTreeMap<u32, (u32, u64, u32)> = BTreeMap::new(); // place → shared, sum, count
            let mut amounts: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
            for a in &awards {
                // After a deal every remaining player agreed, each is paid its share, place 1 with
                // what was left to play for (payouts' deal, docs/architecture.md "Deals").
                if let Some((shares, left, agreed)) = &s.agreed {
                    let expected = shares.get(&a.entry.0).map(|share| share + if a.place == 1 { *left } else { 0 });
                    if expected != Some(a.amount) {
                        let what = expected.map_or_else(|| "is not in it".to_owned(), |e| format!("agreed {e}"));
                        diff(
                            &mut c.places,
                            format!("entry {} paid {} after the deal, which {what}", a.entry, a.amount),
                            vec![*agreed, seq],
                        );
                    }
                }
                if let Some(first) = s.awarded.insert(a.entry.0, seq) {
                    diff(&mut c.places, format!("entry {} awarded a place twice", a.entry), vec![first, seq]);
                }
                s.awards_total += a.amount;
                s.award_amounts.insert(a.entry.0, (a.amount, seq));
                let g = groups.entry(a.place).or_insert((a.shared, 0, 0));
                g.1 += a.amount;
                g.2 += 1;
                amounts.entry(a.place).or_default().push(a.amount);
            }
            for (place, (shared, sum, count)) in groups {
                if let Some(earlier) = s.places.get(&place) {
                    diff(&mut c.places, format!("place {place} awarded again"), vec![earlier[0].2, seq]);
                    continue;
                }
                if count != shared {
                    diff(&mut c.places, format!("place {place}: {count} awards for a range shared by {shared}"), vec![seq]);
                }
                if let (Some((bands, _, locked)), false) = (&s.table, s.deal) {
                    let expected = bands_sum(bands, place, place + shared.max(1) - 1);
                    // A shared range's prizes split as floor_rules::standings::award splits them:
                    // each the total ÷ n, the odd minor units one each to as many of them.
                    let n = u64::from(shared.max(1));
                    let (each, odd) = (expected / n, expected % n);
                    let shares = amounts.get(&place).map(Vec::as_slice).unwrap_or_default();
                    let more = shares.iter().filter(|a| **a == each + 1).count() as u64;
                    let split = shares.iter().all(|a| *a == each || (odd > 0 && *a == each + 1)) && (odd == 0 || more == odd);
                    if shared > 1 && expected == sum && !split {
                        diff(
                            &mut c.places,
                            format!(
                                "places {place}..{}: {shares:?} is not {expected} split {n} ways ({each} each, {odd} more by a cent)",
                                place + shared - 1
                            ),
                            vec![seq],
                        );
                    }
                    if expected != sum {
                        diff(
                            &mut c.places,
                            format!("places {place}..{} pay {sum}, the locked table {expected}", place + shared.max(1) - 1),
                            vec![*locked, seq],
                        );
                    }
                }
                s.places.insert(place, vec![(shared, sum, seq)]);
            }
        }
        PayoutEvent::DealAgreed { shares, left_to_play_for, .. } => {
            s.deal = true;
            s.agreed = Some((shares.iter().map(|s| (s.entry.0, s.amount)).collect(), left_to_play_for, seq));
        }
        // Issue 36: a Day 1's pool out (once, checked at the end against what came in), a
        // Day 2's Day 1 pools in.
        PayoutEvent::PoolTransferred(t) if s.day1 => {
            if let Some((_, first)) = s.transferred_out {
                diff(&mut c.money, "the Day 1's pool transferred twice".to_owned(), vec![first, seq]);
            }
            s.transferred_out = Some((t.amount.amount, seq));
        }
        PayoutEvent::PoolTransferred(t) => s.transferred_in += i128::from(t.amount.amount),
        PayoutEvent::TournamentPaid { prizes_paid } => {
            if let Some(first) = s.paid {
                diff(&mut c.money, "the tournament paid twice".to_owned(), vec![first, seq]);
            }
            s.paid = Some(seq);
            if prizes_paid.amount != s.awards_total {
                diff(
                    &mut c.money,
                    format!("tournament_paid states {} paid, the awards sum to {}", prizes_paid.amount, s.awards_total),
                    vec![seq],
                );
            }
            match &s.table {
                Some((_, pool, locked)) if *pool != prizes_paid.amount => {
                    diff(&mut c.money, format!("prizes paid {} ≠ the locked pool {pool}", prizes_paid.amount), vec![*locked, seq])
                }
                None => diff(&mut c.money, "paid without a locked payout table".to_owned(), vec![seq]),
                _ => {}
            }
        }
        _ => {}
    }
}
