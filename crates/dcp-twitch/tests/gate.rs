//! Which viewer messages become turns, through `ChatGate`'s public API fed
//! with real Twitch lines; time is chosen by each test (no sleeps).

use std::time::Duration;

use dcp_twitch::gate::{NAME_CHARS, TEXT_CHARS};
use dcp_twitch::{parse, ChatGate, DropReason, GateConfig, Message, Offered, ViewerTurn};

const S: Duration = Duration::from_secs(1);

/// A viewer's PRIVMSG as Twitch sends it with the tags capability.
fn said(login: &str, id: &str, text: &str) -> Message {
    let line = format!(
        "@badge-info=;badges=;color=#1E90FF;display-name={login};emotes=;first-msg=0;flags=;id={id};mod=0;\
         room-id=1234;subscriber=0;tmi-sent-ts=1642696567751;turbo=0;user-id=5678;user-type= \
         :{login}!{login}@{login}.tmi.twitch.tv PRIVMSG #streamer :{text}\r\n"
    );
    parse(line.as_bytes()).expect("a Twitch line")
}

fn line(text: &str) -> Message {
    parse(text.as_bytes()).expect("a Twitch line")
}

fn gate_config() -> GateConfig {
    GateConfig { name: Some("Nova".into()), ..GateConfig::default() }
}

fn gate() -> ChatGate {
    ChatGate::new(gate_config())
}

#[test]
fn the_defaults_are_the_documented_ones() {
    let c = GateConfig::default();
    assert_eq!((c.prefix.as_str(), c.name), ("!ask", None));
    assert_eq!((c.cooldown, c.gap, c.waiting, c.max_wait), (60 * S, 10 * S, 5, 60 * S));
    assert_eq!((TEXT_CHARS, NAME_CHARS), (500, 25));
}

#[test]
fn the_prefix_any_case_then_a_space_makes_a_turn() {
    let mut g = gate();
    assert_eq!(g.offer(&said("alice", "f1", "!ASK   what's 20 euros in yen?"), S), Offered::Queued);
    assert_eq!(
        g.next_turn(S),
        Some(ViewerTurn {
            login: "alice".into(),
            display_name: "alice".into(),
            text: "what's 20 euros in yen?".into(),
            msg_id: Some("f1".into())
        })
    );
    assert_eq!(g.offer(&said("bob", "f2", "!asking for a friend"), S), Offered::NotAddressed);
    assert_eq!(g.offer(&said("bob", "f3", "hello chat"), S), Offered::NotAddressed);
    assert_eq!(g.offer(&said("bob", "f4", "I said !ask hi"), S), Offered::NotAddressed);
    assert_eq!(g.waiting(), 0);
}

#[test]
fn a_mention_of_the_companion_anywhere_makes_a_turn_without_it() {
    let mut g = gate();
    assert_eq!(g.offer(&said("alice", "f1", "hey @nova, what's the weather?"), S), Offered::Queued);
    assert_eq!(g.next_turn(S).map(|t| t.text), Some("hey what's the weather?".into()));
    assert_eq!(g.offer(&said("bob", "f2", "@novabot hi"), S), Offered::NotAddressed);
    assert_eq!(g.offer(&said("bob", "f3", "nova hi"), S), Offered::NotAddressed);
    let no_name = &mut ChatGate::new(GateConfig::default());
    assert_eq!(no_name.offer(&said("bob", "f4", "@nova hi"), S), Offered::NotAddressed);
}

#[test]
fn the_text_is_cleaned_and_cut_to_500_characters() {
    let mut g = gate();
    let hidden = "!ask what\u{200b}'s \u{202e}up\u{7}\t there\u{1}";
    assert_eq!(g.offer(&said("alice", "f1", hidden), S), Offered::Queued);
    assert_eq!(g.next_turn(S).map(|t| t.text), Some("what's up there".into()));
    let long = format!("!ask {}", "é".repeat(600));
    assert_eq!(g.offer(&said("bob", "f2", &long), S), Offered::Queued);
    assert_eq!(g.next_turn(20 * S).map(|t| t.text), Some("é".repeat(TEXT_CHARS)));
}

#[test]
fn the_display_name_is_cleaned_cut_or_the_login() {
    let mut g = gate();
    let fancy = line("@display-name=Al\\sice\u{202e}\\n;id=m1 :alice!alice@alice.tmi.twitch.tv PRIVMSG #s :!ask hi");
    g.offer(&fancy, S);
    let long = format!("@display-name={};id=m2 :bob!bob@bob.tmi.twitch.tv PRIVMSG #s :!ask hi", "B".repeat(40));
    g.offer(&line(&long), S);
    g.offer(&line("@display-name=\\s\u{200b};id=m3 :carol!carol@carol.tmi.twitch.tv PRIVMSG #s :!ask hi"), S);
    g.offer(&line(":dave!dave@dave.tmi.twitch.tv PRIVMSG #s :!ask hi"), S);
    let names: Vec<String> = (0..4).filter_map(|i| g.next_turn(S + i * 10 * S)).map(|t| t.display_name).collect();
    assert_eq!(names, ["Al ice", &"B".repeat(NAME_CHARS), "carol", "dave"]);
}

#[test]
fn an_empty_text_is_dropped() {
    let mut g = gate();
    assert_eq!(g.offer(&said("alice", "f1", "!ask"), S), Offered::Dropped(DropReason::Empty));
    assert_eq!(g.offer(&said("alice", "f2", "!ask \u{200b}\u{202e} "), S), Offered::Dropped(DropReason::Empty));
    assert_eq!(g.offer(&said("alice", "f3", "@Nova"), S), Offered::Dropped(DropReason::Empty));
    assert_eq!(g.dropped(DropReason::Empty), 3);
    assert_eq!(g.waiting(), 0);
}

#[test]
fn a_viewer_waits_out_their_cooldown_others_do_not() {
    let mut g = gate();
    assert_eq!(g.offer(&said("alice", "f1", "!ask one"), S), Offered::Queued);
    assert_eq!(g.offer(&said("alice", "f2", "!ask two"), 60 * S), Offered::Dropped(DropReason::Cooldown));
    assert_eq!(g.offer(&said("bob", "f3", "!ask three"), 2 * S), Offered::Queued);
    assert_eq!(g.offer(&said("alice", "f4", "!ask four"), 61 * S), Offered::Queued);
    assert_eq!(g.dropped(DropReason::Cooldown), 1);
}

#[test]
fn one_turn_per_gap_whoever_asks() {
    let mut g = gate();
    for (i, who) in ["alice", "bob", "carol"].iter().enumerate() {
        assert_eq!(g.offer(&said(who, &format!("m{i}"), "!ask hi"), S), Offered::Queued);
    }
    assert_eq!(g.next_turn(S).map(|t| t.login), Some("alice".into()));
    assert_eq!(g.next_turn(10 * S), None, "the gap has not passed");
    assert_eq!(g.next_turn(11 * S).map(|t| t.login), Some("bob".into()));
    assert_eq!(g.next_turn(21 * S).map(|t| t.login), Some("carol".into()));
    assert_eq!(g.next_turn(40 * S), None, "nothing waits");
}

#[test]
fn a_flood_fills_the_queue_and_the_rest_is_dropped() {
    let mut g = gate();
    let offered: Vec<Offered> =
        (0..8).map(|i| g.offer(&said(&format!("viewer{i}"), &format!("m{i}"), "!ask hi"), S)).collect();
    assert_eq!(offered[..5], [Offered::Queued; 5]);
    assert_eq!(offered[5..], [Offered::Dropped(DropReason::QueueFull); 3]);
    assert_eq!((g.waiting(), g.dropped(DropReason::QueueFull)), (5, 3));
    assert_eq!(g.next_turn(S).map(|t| t.login), Some("viewer0".into()), "first come, first served");
}

#[test]
fn a_message_that_waited_too_long_is_dropped_and_counted() {
    let mut g = gate();
    g.offer(&said("alice", "f1", "!ask one"), S);
    g.offer(&said("bob", "f2", "!ask two"), 30 * S);
    assert_eq!(g.next_turn(61 * S).map(|t| t.login), Some("alice".into()), "60 s exactly is not too long");
    assert_eq!(g.next_turn(91 * S), None);
    assert_eq!(g.dropped(DropReason::WaitedTooLong), 1);
    assert_eq!(g.waiting(), 0);
}

#[test]
fn ignored_viewers_any_case_with_or_without_at() {
    let mut g = gate();
    g.offer(&said("troll", "f1", "!ask waiting"), S);
    g.set_ignored(["@Troll ", "SPAMMER"]);
    assert_eq!((g.waiting(), g.dropped(DropReason::Ignored)), (0, 1), "what they had waiting goes too");
    assert_eq!(g.offer(&said("spammer", "f2", "!ask hi"), 2 * S), Offered::Dropped(DropReason::Ignored));
    assert_eq!(g.offer(&said("alice", "f3", "!ask hi"), 2 * S), Offered::Queued);
    g.set_ignored(Vec::<String>::new());
    assert_eq!(g.offer(&said("spammer", "f4", "!ask hi"), 3 * S), Offered::Queued);
    assert_eq!(g.dropped(DropReason::Ignored), 2);
}

#[test]
fn the_pause_switch_drops_what_waits_and_what_comes() {
    let mut g = gate();
    g.offer(&said("alice", "f1", "!ask hi"), S);
    g.set_paused(true);
    assert_eq!(g.offer(&said("bob", "f2", "!ask hi"), S), Offered::Dropped(DropReason::Paused));
    assert_eq!(g.next_turn(S), None);
    assert_eq!(g.dropped(DropReason::Paused), 2);
    g.set_paused(false);
    assert_eq!(g.offer(&said("bob", "f3", "!ask again"), 2 * S), Offered::Queued);
    assert_eq!(g.next_turn(2 * S).map(|t| t.text), Some("again".into()));
}

#[test]
fn moderators_delete_a_message_ban_a_viewer_or_clear_the_chat() {
    let mut g = gate();
    g.offer(&said("alice", "aaa-1", "!ask one"), S);
    g.offer(&said("bob", "bbb-1", "!ask two"), S);
    g.offer(&said("carol", "ccc-1", "!ask three"), S);
    g.offer(&said("dave", "ddd-1", "!ask four"), S);
    let clearmsg = line(
        "@login=alice;room-id=;target-msg-id=aaa-1;tmi-sent-ts=1642720582342 :tmi.twitch.tv CLEARMSG #streamer :one",
    );
    assert_eq!(g.offer(&clearmsg, 2 * S), Offered::Removed { reason: DropReason::Deleted, count: 1 });
    assert_eq!(g.offer(&clearmsg, 2 * S), Offered::Removed { reason: DropReason::Deleted, count: 0 });
    let ban =
        line("@room-id=1234;target-user-id=5678;tmi-sent-ts=1642715756806 :tmi.twitch.tv CLEARCHAT #streamer :bob");
    assert_eq!(g.offer(&ban, 2 * S), Offered::Removed { reason: DropReason::ViewerCleared, count: 1 });
    assert_eq!(g.next_turn(2 * S).map(|t| t.login), Some("carol".into()));
    let clear = line("@room-id=1234;tmi-sent-ts=1642715695392 :tmi.twitch.tv CLEARCHAT #streamer");
    assert_eq!(g.offer(&clear, 3 * S), Offered::Removed { reason: DropReason::ChatCleared, count: 1 });
    assert_eq!(g.waiting(), 0);
    let counts = [DropReason::Deleted, DropReason::ViewerCleared, DropReason::ChatCleared].map(|r| g.dropped(r));
    assert_eq!(counts, [1, 1, 1]);
}

#[test]
fn other_lines_are_the_connections_business() {
    let mut g = gate();
    for other in ["PING :tmi.twitch.tv", ":tmi.twitch.tv RECONNECT", ":tmi.twitch.tv 001 justinfan1 :Welcome, GLHF!"] {
        assert_eq!(g.offer(&line(other), S), Offered::NotChat);
    }
}

#[test]
fn the_players_own_prefix_and_limits() {
    let config = GateConfig {
        prefix: "?Bot".into(),
        cooldown: 5 * S,
        gap: Duration::ZERO,
        waiting: 1,
        max_wait: 2 * S,
        ..gate_config()
    };
    let mut g = ChatGate::new(config);
    assert_eq!(g.offer(&said("alice", "f1", "!ask hi"), S), Offered::NotAddressed);
    assert_eq!(g.offer(&said("alice", "f2", "?bot hi"), S), Offered::Queued);
    assert_eq!(g.offer(&said("bob", "f3", "?BOT hi"), S), Offered::Dropped(DropReason::QueueFull));
    assert_eq!(g.next_turn(S).map(|t| t.login), Some("alice".into()));
    assert_eq!(g.offer(&said("bob", "f4", "?bot again"), S), Offered::Queued);
    assert_eq!(g.next_turn(S).map(|t| t.login), Some("bob".into()), "no gap");
    assert_eq!(g.offer(&said("alice", "f5", "?bot later"), 6 * S), Offered::Queued, "5 s cooldown");
    assert_eq!(g.next_turn(9 * S), None, "waited 3 s of 2");
}

#[test]
fn issue36_the_prefix_changed_while_the_chat_runs() {
    let mut g = gate();
    g.set_prefix("?q");
    assert_eq!(g.offer(&said("alice", "f1", "!ask hi"), S), Offered::NotAddressed);
    assert_eq!(g.offer(&said("alice", "f2", "?Q hi"), S), Offered::Queued);
}

#[test]
fn issue36_a_prefix_the_player_types_is_visible_without_a_space() {
    assert_eq!(dcp_twitch::typed_prefix(" !ask "), Some("!ask".into()));
    assert_eq!(dcp_twitch::typed_prefix(&"?".repeat(20)), Some("?".repeat(20)));
    assert_eq!(dcp_twitch::typed_prefix("¿pregunta"), Some("¿pregunta".into()));
    for typed in ["", "   ", "!a sk", "!ask\u{200b}", "!ask\u{202e}", "!\task", &"?".repeat(21)] {
        assert_eq!(dcp_twitch::typed_prefix(typed), None, "{typed:?}");
    }
}

#[test]
fn issue36_a_viewer_turn_crosses_as_json_without_its_message_id() {
    let turn = ViewerTurn {
        login: "alice".into(),
        display_name: "Alice".into(),
        text: "hi".into(),
        msg_id: Some("f1".into()),
    };
    let json = serde_json::to_value(&turn).expect("json");
    assert_eq!(json, serde_json::json!({"login": "alice", "display_name": "Alice", "text": "hi"}));
}
