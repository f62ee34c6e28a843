//! Verbs with their types: a command subject, the request it takes and the reply it gives, named
//! once so the service that serves it and every client that sends it cannot disagree.
//!
//! A [`Verb`] is a constant in its service's contract module (`registration::verbs::REGISTER`,
//! `clock::verbs::PAUSE`, …). The runtime serves it (decoding the request type, encoding the
//! reply type) and its typed client sends it; [`crate::registry`] lists every service's verbs for
//! the schemas, the AsyncAPI document and `floor run --only`.

use std::fmt;
use std::marker::PhantomData;

/// A command verb of a service: `floor.cmd.<service>.<name>`, taking `Req` and replying
/// `Reply<Rep>`.
pub struct Verb<Req, Rep> {
    service: &'static str,
    name: &'static str,
    // `fn(Req) -> Rep`: a verb owns neither; it only names the types, and stays `Copy`, `Send`
    // and `Sync` whatever they are.
    types: PhantomData<fn(Req) -> Rep>,
}

impl<Req, Rep> Verb<Req, Rep> {
    /// The verb `name` of `service`.
    pub const fn new(service: &'static str, name: &'static str) -> Self {
        Self { service, name, types: PhantomData }
    }

    /// The service that serves it (`registration`).
    pub const fn service(&self) -> &'static str {
        self.service
    }

    /// The verb's name (`register`): the last part of its subject.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The subject it is served on: `floor.cmd.<service>.<name>`.
    pub fn subject(&self) -> String {
        crate::subjects::command_subject(self.service, self.name)
    }
}

impl<Req, Rep> Clone for Verb<Req, Rep> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Req, Rep> Copy for Verb<Req, Rep> {}

impl<Req, Rep> fmt::Debug for Verb<Req, Rep> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.service, self.name)
    }
}

impl<Req, Rep> fmt::Display for Verb<Req, Rep> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.service, self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verb_names_its_subject() {
        const V: Verb<u8, u16> = Verb::new("registration", "register");
        assert_eq!(V.subject(), "floor.cmd.registration.register");
        assert_eq!(V.to_string(), "registration.register");
    }
}
