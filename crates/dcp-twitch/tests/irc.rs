//! Twitch IRC lines read through `dcp_twitch::parse`: the shapes of
//! Twitch's own documentation, and hostile lines refused with their reason.

use dcp_twitch::irc::{LineError, Message, Privmsg, MAX_LINE_BYTES};
use dcp_twitch::parse;

const BROADCASTER: &str =
    "@badge-info=;badges=broadcaster/1;client-nonce=459e3142897c7a22b7d275178f2259e0;color=#0000FF;\
display-name=lovingt3s;emote-only=1;emotes=62835:0-10;first-msg=0;flags=;id=885196de-cb67-427a-baa8-82f9b0fcd05f;mod=0;\
room-id=713936733;subscriber=0;tmi-sent-ts=1643904084794;turbo=0;user-id=713936733;user-type= \
:lovingt3s!lovingt3s@lovingt3s.tmi.twitch.tv PRIVMSG #lovingt3s :!ask bleedPurple\r\n";

fn privmsg(line: &str) -> Privmsg {
    match parse(line.as_bytes()) {
        Ok(Message::Privmsg(m)) => m,
        other => panic!("not a PRIVMSG: {other:?}"),
    }
}

#[test]
fn a_broadcasters_privmsg_with_twitchs_tags() {
    let m = privmsg(BROADCASTER);
    assert_eq!(m.channel, "lovingt3s");
    assert_eq!(m.login, "lovingt3s");
    assert_eq!(m.display_name.as_deref(), Some("lovingt3s"));
    assert_eq!(m.user_id.as_deref(), Some("713936733"));
    assert_eq!(m.msg_id.as_deref(), Some("885196de-cb67-427a-baa8-82f9b0fcd05f"));
    assert_eq!(m.text, "!ask bleedPurple");
    assert!(m.broadcaster);
    assert!(!m.moderator);
}

#[test]
fn a_moderator_by_badge_or_by_tag_and_the_login_from_the_prefix_lowercased() {
    let by_badge = privmsg("@badges=moderator/1,subscriber/12;display-name=Mod_One;id=a1;mod=1;user-id=42 :Mod_One!mod_one@mod_one.tmi.twitch.tv PRIVMSG #streamer :hi");
    assert!(by_badge.moderator && !by_badge.broadcaster);
    assert_eq!(by_badge.login, "mod_one");
    assert_eq!(by_badge.display_name.as_deref(), Some("Mod_One"));
    let by_tag = privmsg("@badges=;mod=1 :viewer!viewer@viewer.tmi.twitch.tv PRIVMSG #streamer :hi");
    assert!(by_tag.moderator);
    let plain = privmsg(":viewer!viewer@viewer.tmi.twitch.tv PRIVMSG #streamer :hi there : friend");
    assert!(!plain.moderator && !plain.broadcaster);
    assert_eq!((plain.display_name, plain.msg_id, plain.user_id), (None, None, None));
    assert_eq!(plain.text, "hi there : friend");
}

#[test]
fn tag_values_are_unescaped_as_ircv3_says() {
    let m = privmsg(r"@display-name=a\sb\:c\\d\re\nf\xg\ :v!v@v.tmi.twitch.tv PRIVMSG #s :t");
    assert_eq!(m.display_name.as_deref(), Some("a b;c\\d\re\nfxg"));
    // An empty value is no value; of a key given twice the last counts.
    let m = privmsg("@id=;display-name=One;display-name=Two :v!v@v.tmi.twitch.tv PRIVMSG #s :t");
    assert_eq!(m.msg_id, None);
    assert_eq!(m.display_name.as_deref(), Some("Two"));
}

#[test]
fn ping_is_answered_with_its_token_on_one_line() {
    let Ok(Message::Ping(ping)) = parse(b"PING :tmi.twitch.tv\r\n") else { panic!("not a PING") };
    assert_eq!(ping.pong(), "PONG :tmi.twitch.tv\r\n");
    let Ok(Message::Ping(bare)) = parse(b"PING") else { panic!("not a PING") };
    assert_eq!(bare.pong(), "PONG\r\n");
}

#[test]
fn reconnect_clearmsg_clearchat_notice_and_the_others() {
    assert_eq!(parse(b":tmi.twitch.tv RECONNECT"), Ok(Message::Reconnect));
    assert_eq!(
        parse(b"@login=foo;room-id=;target-msg-id=94e6c7ff-bf98-4faa-af5d-7ad633a158a9;tmi-sent-ts=1642720582342 :tmi.twitch.tv CLEARMSG #bar :what a great day"),
        Ok(Message::ClearMsg { target_msg_id: "94e6c7ff-bf98-4faa-af5d-7ad633a158a9".into() })
    );
    assert_eq!(
        parse(b"@ban-duration=350;room-id=12345678;target-user-id=87654321;tmi-sent-ts=1642719320727 :tmi.twitch.tv CLEARCHAT #dallas :Ronni"),
        Ok(Message::ClearChat { login: Some("ronni".into()) })
    );
    assert_eq!(
        parse(b"@room-id=12345678;tmi-sent-ts=1642715695392 :tmi.twitch.tv CLEARCHAT #dallas"),
        Ok(Message::ClearChat { login: None })
    );
    assert_eq!(
        parse(b"@msg-id=msg_channel_suspended :tmi.twitch.tv NOTICE #bar :This channel\x1b[31m does not exist\xe2\x80\xae."),
        Ok(Message::Notice { msg_id: Some("msg_channel_suspended".into()), text: "This channel[31m does not exist.".into() })
    );
    assert_eq!(
        parse(b":tmi.twitch.tv 001 justinfan12345 :Welcome, GLHF!"),
        Ok(Message::Other { command: "001".into() })
    );
    assert_eq!(
        parse(b":justinfan12345!justinfan12345@justinfan12345.tmi.twitch.tv JOIN #bar"),
        Ok(Message::Other { command: "JOIN".into() })
    );
}

#[test]
fn hostile_lines_are_refused_with_their_reason() {
    let long = format!(":v!v@v PRIVMSG #s :{}", "a".repeat(MAX_LINE_BYTES));
    assert_eq!(parse(long.as_bytes()), Err(LineError::TooLong));
    let just_fits = format!(":v!v@v PRIVMSG #s :{}", "a".repeat(MAX_LINE_BYTES - 19));
    assert!(matches!(parse(just_fits.as_bytes()), Ok(Message::Privmsg(_))));
    assert_eq!(parse(b":v!v@v PRIVMSG #s :caf\xe9"), Err(LineError::NotUtf8));
    assert_eq!(parse(b":v!v@v PRIVMSG #s :one\rPRIVMSG #s :two"), Err(LineError::ForbiddenByte));
    assert_eq!(parse(b":v!v@v PRIVMSG #s :one\nPING"), Err(LineError::ForbiddenByte));
    assert_eq!(parse(b":v!v@v PRIVMSG #s :nul\0"), Err(LineError::ForbiddenByte));
    assert_eq!(parse(b""), Err(LineError::BadCommand));
    assert_eq!(parse(b"@a=b :prefix-only"), Err(LineError::BadCommand));
    assert_eq!(parse(b":v PRIV.MSG #s :x"), Err(LineError::BadCommand));
    assert_eq!(parse(b"PRIVMSG #s :no sender"), Err(LineError::Missing { command: "PRIVMSG", part: "sender" }));
    assert_eq!(parse(b":v!v@v PRIVMSG"), Err(LineError::Missing { command: "PRIVMSG", part: "channel" }));
    assert_eq!(parse(b":v!v@v PRIVMSG #s"), Err(LineError::Missing { command: "PRIVMSG", part: "text" }));
    assert_eq!(
        parse(b":tmi.twitch.tv CLEARMSG #s :x"),
        Err(LineError::Missing { command: "CLEARMSG", part: "target-msg-id" })
    );
    assert_eq!(parse(":v\u{202e}x!v@v PRIVMSG #s :x".as_bytes()), Err(LineError::BadLogin));
    assert_eq!(parse(b":tmi.twitch.tv CLEARCHAT #s :not/a/login"), Err(LineError::BadLogin));
}

#[test]
fn hello_asks_for_tags_and_commands_logs_in_anonymously_and_joins_the_channel() {
    let lines = "CAP REQ :twitch.tv/tags twitch.tv/commands\r\nNICK justinfan12345\r\nJOIN #streamer_42\r\n";
    assert_eq!(dcp_twitch::hello(" #Streamer_42 ").as_deref(), Ok(lines));
    assert_eq!(dcp_twitch::irc::ANONYMOUS_NICK, "justinfan12345");
    for typed in ["", "#", "streamer\r\nPRIVMSG #x :hi", "a b", "twitch.tv/streamer", &"s".repeat(26)] {
        assert_eq!(dcp_twitch::hello(typed), Err(LineError::BadLogin), "{typed:?}");
    }
}

#[test]
fn issue36_a_message_id_not_of_twitchs_shape_is_dropped() {
    // A line break through IRCv3's escapes, a space, an upper-case or non-hex
    // letter, a 65-byte id: no id, the message itself still read.
    for id in [r"aa\r\nPRIVMSG", r"aa\sbb", "885196DE", "zz-1", &"a".repeat(65)] {
        let m = privmsg(&format!("@id={id};user-id=42 :v!v@v.tmi.twitch.tv PRIVMSG #s :!ask hi"));
        assert_eq!(m.msg_id, None, "{id:?}");
        assert_eq!(m.text, "!ask hi");
    }
    assert_eq!(privmsg(&format!("@id={} :v!v@v PRIVMSG #s :t", "a".repeat(64))).msg_id, Some("a".repeat(64)));
}

#[test]
fn issue36_a_user_id_not_of_digits_is_dropped() {
    for id in [r"42\n", "4 2", "-42", "42a", &"4".repeat(65)] {
        let m = privmsg(&format!("@user-id={} :v!v@v.tmi.twitch.tv PRIVMSG #s :hi", id.replace(' ', r"\s")));
        assert_eq!(m.user_id, None, "{id:?}");
    }
}

#[test]
fn issue36_a_notice_id_not_of_twitchs_shape_is_dropped() {
    for id in [r"msg_banned\r\nJOIN", "Msg_Banned", r"msg\sbanned", "msg-banned\u{7}"] {
        let line = format!("@msg-id={id} :tmi.twitch.tv NOTICE #s :You are banned.");
        let Ok(Message::Notice { msg_id, text }) = parse(line.as_bytes()) else { panic!("not a NOTICE: {id:?}") };
        assert_eq!((msg_id, text.as_str()), (None, "You are banned."), "{id:?}");
    }
}

#[test]
fn issue36_a_clearmsg_whose_target_is_not_a_message_id_is_refused() {
    for id in [r"aaa\r\n", "AAA-1", "x", &"a".repeat(65)] {
        let line = format!("@login=v;target-msg-id={id} :tmi.twitch.tv CLEARMSG #s :x");
        assert_eq!(
            parse(line.as_bytes()),
            Err(LineError::BadId { command: "CLEARMSG", part: "target-msg-id" }),
            "{id:?}"
        );
    }
}

#[test]
fn issue36_a_typed_login_loses_its_hash_or_at_and_its_case() {
    assert_eq!(dcp_twitch::typed_login(" #Streamer_42 "), Ok("streamer_42".into()));
    assert_eq!(dcp_twitch::typed_login("@Viewer"), Ok("viewer".into()));
    for typed in ["", "#", "##a", "@#a", "a b", "a\r\nb", "é", &"s".repeat(26)] {
        assert_eq!(dcp_twitch::typed_login(typed), Err(LineError::BadLogin), "{typed:?}");
    }
}
