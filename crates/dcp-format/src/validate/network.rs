//! `permissions` (§5, §14, §15): declared hosts and local ports, and the
//! permissions that are refused (`lan`, `host`).

use super::json::Value;
use super::{type_name, unknown_keys, Path};
use crate::hosts::{check_public_domain, reserved_port};
use crate::limits;
use crate::problem::{Code, Problems};

/// What a plugin may reach.
#[derive(Debug, Default)]
pub(super) struct Network {
    pub hosts: Vec<String>,
    pub ports: Vec<u16>,
}

pub(super) fn check(permissions: Option<&Value>, p: &mut Problems) -> Network {
    let mut net = Network::default();
    let Some(permissions) = permissions else {
        p.push(
            Code::BadHosts,
            "permissions",
            "declare permissions.network.hosts (or local.ports for a server on the PC)",
        );
        return net;
    };
    let Value::Object(permissions) = permissions else {
        p.push(
            Code::BadFormat,
            "permissions",
            format!("permissions must be an object, not {}", type_name(permissions)),
        );
        return net;
    };
    unknown_keys(permissions, &["network", "host"], Code::BadFormat, Path::top("permissions"), p);
    if permissions.contains_key("host") {
        p.push(
            Code::HostPermissionsUnsupported,
            "permissions.host",
            "companion capabilities (permissions.host) are not supported yet",
        );
    }
    let network = match permissions.get("network") {
        Some(Value::Object(network)) => network,
        Some(other) => {
            p.push(
                Code::BadFormat,
                "permissions.network",
                format!("network must be an object, not {}", type_name(other)),
            );
            return net;
        }
        None => {
            p.push(Code::BadHosts, "permissions.network", "declare network.hosts (or network.local.ports)");
            return net;
        }
    };
    unknown_keys(network, &["hosts", "local", "lan"], Code::BadFormat, Path::top("permissions.network"), p);
    if network.contains_key("lan") {
        p.push(Code::LanUnsupported, "permissions.network.lan", "local network access is not supported");
    }
    if let Some(local) = network.get("local") {
        net.ports = ports(local, p);
    }
    match network.get("hosts") {
        Some(hosts_value) => net.hosts = hosts(hosts_value, p),
        None if network.contains_key("local") => {}
        None => p.push(
            Code::BadHosts,
            "permissions.network.hosts",
            "declare 1 to 10 hosts (or local.ports for a server on the PC)",
        ),
    }
    net
}

fn hosts(value: &Value, p: &mut Problems) -> Vec<String> {
    const PATH: &str = "permissions.network.hosts";
    let Value::Array(items) = value else {
        p.push(Code::BadHosts, PATH, "hosts must be a list of domain names");
        return Vec::new();
    };
    if !limits::HOSTS.contains(&items.len()) {
        p.push(Code::BadHosts, PATH, format!("{} hosts declared; 1 to 10", items.len()));
    }
    let list = Path::top(PATH);
    let mut hosts: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = list.index(i);
        let Some(host) = item.as_str() else {
            p.push(Code::BadHosts, path, format!("a host must be a string, not {}", type_name(item)));
            continue;
        };
        if let Err(why) = check_public_domain(host) {
            p.push(Code::BadHosts, path, why);
        } else if hosts.iter().any(|h| h == host) {
            p.push(Code::BadHosts, path, format!("{host} is listed twice"));
        } else {
            hosts.push(host.to_owned());
        }
    }
    hosts
}

fn ports(local: &Value, p: &mut Problems) -> Vec<u16> {
    const PATH: &str = "permissions.network.local";
    let Value::Object(local) = local else {
        p.push(Code::BadLocalPorts, PATH, "local must be an object: { \"ports\": [8420] }");
        return Vec::new();
    };
    let local_path = Path::top(PATH);
    unknown_keys(local, &["ports"], Code::BadLocalPorts, local_path, p);
    let path = local_path.key("ports");
    let Some(Value::Array(items)) = local.get("ports") else {
        p.push(Code::BadLocalPorts, path, "ports must be a list of 1 to 3 port numbers");
        return Vec::new();
    };
    if !limits::LOCAL_PORTS.contains(&items.len()) {
        p.push(Code::BadLocalPorts, path, format!("{} ports declared; 1 to 3", items.len()));
    }
    let mut ports = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = path.index(i);
        let Some(port) = item.as_u64().and_then(|n| u16::try_from(n).ok()).filter(|n| *n > 0) else {
            p.push(Code::BadLocalPorts, path, format!("{item} is not a port number (1 to 65535)"));
            continue;
        };
        if let Some(user) = reserved_port(port) {
            p.push(Code::BadLocalPorts, path, format!("port {port} is reserved ({user}); pick another, such as 8420"));
        } else if ports.contains(&port) {
            p.push(Code::BadLocalPorts, path, format!("port {port} is listed twice"));
        } else {
            ports.push(port);
        }
    }
    ports
}
