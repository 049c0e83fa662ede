//! A test CA made at run time and a server certificate it signs for the
//! names a test chooses, so an "online" AI can be served over real TLS on
//! loopback: the client trusts `ca_pem` through the network filter's test
//! hook (`DCPLUGIN_TEST_CA`), never the system's roots.

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};

use crate::server::Tls;

/// The CA's certificate and the server's certificate and key, all PEM.
#[derive(Debug, Clone)]
pub struct TestPki {
    /// What the client trusts.
    pub ca_pem: String,
    /// The server certificate for the names given.
    pub cert_pem: String,
    /// Its private key.
    pub key_pem: String,
}

impl TestPki {
    /// A new CA and a server certificate for `names` (DNS names or IP addresses).
    pub fn new(names: &[&str]) -> Result<TestPki, rcgen::Error> {
        let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.distinguished_name.push(DnType::CommonName, "scripted-ai test CA");
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate()?)?;
        let key = KeyPair::generate()?;
        let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        let leaf = CertificateParams::new(names)?.signed_by(&key, &ca)?;
        Ok(TestPki { ca_pem: ca.pem(), cert_pem: leaf.pem(), key_pem: key.serialize_pem() })
    }

    /// The server's half, for [`crate::Options::tls`].
    pub fn tls(&self) -> Tls {
        Tls { cert_pem: self.cert_pem.clone(), key_pem: self.key_pem.clone() }
    }
}
