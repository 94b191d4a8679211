//! Searching a source tree without building an index first: its files
//! listed and read ([`walk`]), minified or generated ones told apart
//! ([`generated`]), and files cut into line chunks ([`chunk`]).

pub mod chunk;
pub mod generated;
pub mod walk;
