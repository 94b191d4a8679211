//! One collection split over several indexes: the statistics each shard
//! scores with ([`global_stats`], summed over the shards, so that each
//! scores as one index of the whole) and the merge of their top k
//! ([`merge`]).

pub mod global_stats;
pub mod merge;
