//! §17, issue 34: with more tools eligible than the 30 offered, the turn's
//! words pick them. Against 200 installed plugins (3,000 tools, `catalog`),
//! every sentence a player might say gets the tool it needs offered
//! (recall 100 %), where the cut in slug order reaches only the first two
//! plugins. Run with `--nocapture` to see both recalls.

mod catalog;

use dcp_call::offer::{offer, Offer};
use dcp_call::turn::{Place, Source, Turn};
use dcp_format::language::Language;

/// What a player says, and the tool that must be offered for it. Several
/// do not name the tool, only what its hint or description says.
const SENTENCES: &[(&str, &str)] = &[
    ("Is it going to rain tomorrow in Lyon?", "skycast__forecast"),
    ("What's the weather like right now in Oslo?", "skycast__current_conditions"),
    ("Are there any storm warnings for Brittany?", "skycast__weather_alerts"),
    ("How bad is the pollen today?", "skycast__air_quality"),
    ("Do I need sunscreen, what's the UV like?", "skycast__uv_index"),
    ("When does the sun set tonight?", "skycast__sunrise_sunset"),
    ("What's on my to-do list?", "taskly__list_tasks"),
    ("Remind me to call the plumber tomorrow, put it on my to-do list", "taskly__add_task"),
    ("I finished the report task, mark it done", "taskly__complete_task"),
    ("Play some jazz", "tunebox__play_song"),
    ("Skip this song", "tunebox__next_track"),
    ("What song is this?", "tunebox__now_playing"),
    ("Turn the volume down to 20", "tunebox__set_volume"),
    ("What's in my calendar on Friday?", "agendo__list_events"),
    ("When is my next meeting?", "agendo__next_meeting"),
    ("Turn off the lights in the kitchen", "lumo__lights_off"),
    ("Switch on the living room lights", "lumo__lights_on"),
    ("Dim the bedroom lamps to 30 percent", "lumo__set_brightness"),
    ("Make the bulbs blue", "lumo__set_color"),
    ("Write a note: the wifi password is on the fridge", "jotter__add_note"),
    ("How much is Apple's share price?", "tickr__stock_price"),
    ("How are my investments doing today?", "tickr__portfolio_value"),
    ("Translate good morning into Spanish", "lingo__translate_text"),
    ("Which language is this text in?", "lingo__detect_language"),
    ("Set a timer for ten minutes for the pasta", "tempo__start_timer"),
    ("Wake me up at 7 with an alarm", "tempo__set_alarm"),
    ("Ask me a quiz question about history", "quizzy__trivia_question"),
    ("Roll two dice", "quizzy__roll_dice"),
    ("What can I cook with eggs and spinach?", "cookbook__find_recipe"),
    ("What are today's headlines?", "headliner__top_headlines"),
    ("How many steps did I walk today?", "stridely__steps_today"),
    ("How did I sleep last night?", "stridely__sleep_summary"),
    ("Do I have new emails?", "mailbird__unread_mail"),
    ("How do I walk to the station?", "waypoint__directions"),
    ("Is there a pharmacy near me?", "waypoint__nearby_places"),
    ("How much is 100 dollars in euros?", "fxrate__convert"),
    ("Add buy milk to my shopping list", "cartful__add_item"),
    ("Where is my parcel?", "parcelo__track_package"),
    ("When is Dune showing at the cinema?", "cinelist__showtimes"),
    ("Set the heating to 21 degrees", "thermia__set_temperature"),
    ("What does ephemeral mean?", "wordly__define_word"),
    ("What's the score of the match?", "scoreline__live_scores"),
    ("Play the latest episode of my podcast", "castaway__play_episode"),
    ("What's bitcoin worth?", "coinwatch__coin_price"),
    ("Is flight AF1234 delayed?", "skyroute__flight_status"),
];

/// In the player's language (French), against the French hints.
const PHRASES: &[(&str, &str)] = &[
    ("Quelle météo demain à Lyon ?", "skycast__forecast"),
    ("Éteins la lumière du salon", "lumo__lights_off"),
    ("Lance un minuteur de dix minutes", "tempo__start_timer"),
    ("Où en est mon colis ?", "parcelo__track_package"),
];

fn turn(words: &str) -> Turn {
    Turn { words: words.to_owned(), ..Turn::new(Source::Voice, Place::Pc) }
}

fn offered(o: &Offer, tool: &str) -> bool {
    o.tools.iter().any(|t| t.name == tool)
}

/// How many of `sentences` get their tool offered, by words and in slug
/// order, each missed one printed.
fn recall(language: Language, sentences: &[(&str, &str)]) -> (usize, usize) {
    let plugins = catalog::contexts(language);
    let tools: usize = plugins.iter().filter_map(|c| c.plugin.as_ref()).map(|p| p.tools.len()).sum();
    assert_eq!((plugins.len(), tools), (200, 3000));
    let first = offer(&turn(""), &plugins);
    let (mut ranked, mut cut) = (0, 0);
    for (words, tool) in sentences {
        let o = offer(&turn(words), &plugins);
        assert_eq!(o.tools.len(), 30, "30 offered");
        assert_eq!(o.left_out.iter().filter(|l| l.reason.as_str() == "tool_limit").count(), 2970, "the rest is said");
        if offered(&o, tool) {
            ranked += 1;
        } else {
            println!("missed by the ranking: {words:?} → {tool}");
        }
        cut += usize::from(offered(&first, tool));
    }
    (ranked, cut)
}

#[test]
fn s17_the_right_tool_is_offered_for_every_sentence_among_200_plugins() {
    let (ranked, cut) = recall(Language::En, SENTENCES);
    let n = SENTENCES.len();
    println!("recall over {n} sentences: ranking {ranked}/{n}, slug order {cut}/{n}");
    assert!(n >= 40);
    assert_eq!(ranked, n, "every sentence's tool is offered");
}

#[test]
fn s17_the_players_language_hints_count_too() {
    let (ranked, cut) = recall(Language::Fr, PHRASES);
    let n = PHRASES.len();
    println!("recall over {n} French sentences: ranking {ranked}/{n}, slug order {cut}/{n}");
    assert_eq!(ranked, n);
}

#[test]
fn s17_a_tool_used_earlier_in_the_conversation_stays_offered() {
    // "Yes please" names nothing: the task plugin read before decides.
    let plugins = catalog::contexts(Language::En);
    let alone = offer(&turn("yes please"), &plugins);
    assert!(!offered(&alone, "taskly__complete_task"));
    let after = Turn { used: vec!["taskly__list_tasks".into()], ..turn("yes please") };
    let o = offer(&after, &plugins);
    assert!(offered(&o, "taskly__list_tasks") && offered(&o, "taskly__complete_task"));
}

#[test]
fn s17_without_words_the_cut_keeps_the_offers_order() {
    // `dcplugin tools`, an MCP client's list: the first 30 by slug, then
    // manifest order, whatever is asked of it.
    let plugins = catalog::contexts(Language::En);
    let o = offer(&turn(""), &plugins);
    let first: Vec<String> = plugins
        .iter()
        .flat_map(|c| c.plugin.as_ref().expect("plugin").tools.iter().map(|t| t.full_name.to_string()))
        .take(30)
        .collect();
    let names: Vec<String> = o.tools.iter().map(|t| t.name.clone()).collect();
    assert_eq!(names, first);
    // Ranked, the kept tools stay in that order too.
    let ranked = offer(&turn("Play some jazz"), &plugins);
    let mut sorted = ranked.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    let order = |name: &String| {
        plugins
            .iter()
            .flat_map(|c| c.plugin.as_ref().expect("plugin").tools.iter())
            .position(|t| t.full_name.as_str() == name)
    };
    sorted.sort_by_key(order);
    assert_eq!(ranked.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>(), sorted);
}
