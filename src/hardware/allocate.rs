//! Demand against supply: which of an inventory's GPUs each pipeline stage
//! draws from.

use std::collections::BTreeMap;

use crate::hardware::catalog;
use crate::hardware::inventory::{InvGpu, InvNode, Inventory};
use crate::source::Loc;

/// Schedulable GPUs of one type, as the inventory names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pool {
    /// What the GPUs offer: a catalog id (with a MIG profile where there is one).
    pub label: String,
    pub total: u32,
    pub available: u32,
}

/// GPUs of one pool given to a stage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Take {
    pub offered: String,
    pub count: u32,
}

/// GPUs of a schedulable node that cannot run the experiment (its driver
/// is too old for the image): not supply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excluded {
    pub node: String,
    /// What the GPUs offer, as a pool label.
    pub offered: String,
    pub count: u32,
    /// Why: the driver and what the image needs (R105 words it).
    pub reason: OldDriver,
    /// Where the inventory states the cause (the driver).
    pub at: Loc,
}

/// A node's driver that is older than the experiment's image needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OldDriver {
    /// The driver version, as the inventory writes it.
    pub driver: String,
    /// The oldest driver the image's CUDA runs on.
    pub min: String,
    /// The image's CUDA release (major.minor), when known.
    pub cuda: Option<String>,
    /// The image, as written.
    pub image: String,
}

/// Demand against supply: which pools each stage draws from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Allocation {
    pub pools: Vec<Pool>,
    /// Stage id → GPUs taken, in order of preference.
    pub taken: BTreeMap<i64, Vec<Take>>,
    /// Stage id → GPUs still missing.
    pub missing: BTreeMap<i64, u32>,
    /// GPUs left out of the pools, node by node.
    pub excluded: Vec<Excluded>,
}

/// Why a node's GPUs cannot serve the experiment, if they cannot: the
/// reason and where the inventory states its cause.
pub type Exclude<'a> = &'a dyn Fn(&InvNode, &InvGpu) -> Option<(OldDriver, Loc)>;

/// The inventory's schedulable, identified GPUs grouped by what they offer
/// (a catalog id, with a MIG profile where there is one), in a stable order;
/// and the GPUs `exclude` leaves out.
pub fn pools(inv: &Inventory, exclude: Exclude<'_>) -> (Vec<Pool>, Vec<Excluded>) {
    let mut counts: BTreeMap<String, u32> = BTreeMap::new();
    let mut excluded = Vec::new();
    for node in &inv.nodes {
        // GPUs stagec cannot identify were reported (P302) and count for nothing.
        for g in node.gpus.iter().filter(|g| g.is_known()) {
            if let Some((reason, at)) = exclude(node, g) {
                excluded.push(Excluded {
                    node: node.name.clone(),
                    offered: g.offered_name(),
                    count: g.count,
                    reason,
                    at,
                });
                continue;
            }
            *counts.entry(g.offered_name()).or_default() += g.count;
        }
    }
    let pools = counts
        .into_iter()
        .map(|(label, total)| Pool {
            label,
            total,
            available: total,
        })
        .collect();
    (pools, excluded)
}

/// What one stage asks for: its id and its acceptable GPU types, in order
/// of preference.
#[derive(Clone, Copy, Debug)]
pub struct Demand<'a> {
    pub id: i64,
    pub gpu_types: &'a [String],
}

/// Allocates each stage's `dp` GPUs (one per data-parallel replica),
/// stage by stage in id order, each from its acceptable types in order of
/// preference; stages sharing a type share its supply. GPUs `exclude`
/// rejects are not supply.
pub fn allocate(inv: &Inventory, demands: &[Demand<'_>], dp: i64, exclude: Exclude<'_>) -> Allocation {
    let (pools, excluded) = pools(inv, exclude);
    let mut alloc = Allocation {
        pools,
        excluded,
        ..Allocation::default()
    };
    let mut order: Vec<&Demand<'_>> = demands.iter().collect();
    order.sort_by_key(|s| s.id);
    for s in order {
        if s.gpu_types.is_empty() {
            continue;
        }
        let mut need = u32::try_from(dp.max(0)).unwrap_or(u32::MAX);
        let mut takes = Vec::new();
        for t in s.gpu_types {
            for pool in alloc.pools.iter_mut() {
                if need == 0 {
                    break;
                }
                if pool.available == 0 || !catalog::serves(t, &pool.label) {
                    continue;
                }
                let take = need.min(pool.available);
                pool.available -= take;
                need -= take;
                takes.push(Take {
                    offered: pool.label.clone(),
                    count: take,
                });
            }
        }
        if need > 0 {
            alloc.missing.insert(s.id, need);
        }
        alloc.taken.insert(s.id, takes);
    }
    alloc
}
