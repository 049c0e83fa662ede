//! 200 installed plugins of 15 tools each, as a player with many plugins
//! might have (issue 34's ranking test and benchmark): 25 plugins of
//! everyday domains written out below (weather, tasks, music, calendar,
//! lights, notes, stocks, translation, timers, games…), each padded to 15
//! tools with the account tools such services have, and 175 others made
//! from 15 tool templates over 60 other kinds of things (bookmarks,
//! invoices, plants…), three services each. Slugs are the services'
//! names: the domains the ranking is tried on are spread across the
//! alphabet, not first in it. [`active`] makes any manifest a plugin as
//! the courtier sees it, for every test of this crate.

#![allow(dead_code)] // each test or bench uses part of it

use dcp_format::language::Language;
use dcp_format::{validate_manifest, Options};
use dcp_store::{CallContext, Prefs, Status};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// A tool: name, description, English hint, French hint (may be empty).
type Spec = (&'static str, &'static str, &'static str, &'static str);

/// The everyday plugins: slug, what its account is about, its tools.
pub const DOMAINS: &[(&str, &str, &[Spec])] = &[
    ("skycast", "weather", &[
        ("forecast", "Tell the weather forecast for a city for the next days: temperatures and the chance of rain.", "tell the forecast", "donner la météo des prochains jours"),
        ("current_conditions", "Read the weather in a city right now: temperature, wind and sky.", "tell the weather now", "donner la météo actuelle"),
        ("weather_alerts", "List the storm, heat and flood warnings in force for a region.", "list weather warnings", "lister les alertes météo"),
        ("air_quality", "Read the air quality index and pollen levels of a city.", "read the air quality", "lire la qualité de l'air"),
        ("uv_index", "Read the UV index of a city today, with the sunburn risk.", "read the UV index", ""),
        ("sunrise_sunset", "Tell the sunrise and sunset times of a city on a date.", "tell sunrise and sunset", ""),
    ]),
    ("taskly", "task", &[
        ("list_tasks", "List the user's open tasks due today or overdue, with their ids. Gives the ids needed to complete a task.", "list your tasks", "lister vos tâches"),
        ("add_task", "Add a task to the user's to-do list, with an optional due date such as tomorrow.", "add a task to your to-do list", "ajouter une tâche"),
        ("complete_task", "Mark one of the user's tasks as done. Needs the task id from the task list, not its title.", "complete a task", "terminer une tâche"),
        ("postpone_task", "Move the due date of one task by its id.", "postpone a task", ""),
    ]),
    ("tunebox", "music", &[
        ("play_song", "Play a song, an album or an artist on the user's speakers.", "play music", "jouer de la musique"),
        ("pause_playback", "Pause the music that is playing.", "pause the music", "mettre la musique en pause"),
        ("next_track", "Skip to the next song in the queue.", "skip to the next song", "passer au morceau suivant"),
        ("now_playing", "Tell which song and artist are playing now.", "tell what is playing", ""),
        ("add_to_playlist", "Add the song playing now to one of the user's playlists.", "add a song to a playlist", ""),
        ("set_volume", "Set the speaker volume from 0 to 100.", "set the volume", "régler le volume"),
    ]),
    ("agendo", "calendar", &[
        ("list_events", "List the events in the user's calendar for a day or a week.", "list your calendar events", "lister vos rendez-vous"),
        ("add_event", "Add an event to the user's calendar with a title, a date and a time.", "add a calendar event", "ajouter un rendez-vous"),
        ("next_meeting", "Tell when the user's next meeting starts and who attends.", "tell your next meeting", ""),
        ("free_slots", "Find free time slots in the user's calendar on a day.", "find free time", ""),
    ]),
    ("lumo", "lighting", &[
        ("lights_on", "Switch on the lights of a room in the user's home.", "switch the lights on", "allumer la lumière"),
        ("lights_off", "Switch off the lights of a room in the user's home.", "switch the lights off", "éteindre la lumière"),
        ("set_brightness", "Dim or brighten the lamps of a room, from 1 to 100 percent.", "dim or brighten lamps", ""),
        ("set_color", "Change the color of the bulbs of a room.", "change bulb colors", ""),
        ("list_rooms", "List the rooms and lamps of the user's home.", "list your rooms and lamps", ""),
    ]),
    ("jotter", "notebook", &[
        ("add_note", "Write a new note in the user's notebook with a title and a text.", "write a note", "écrire une note"),
        ("search_notes", "Search the user's notes by words and return the matches with their ids.", "search your notes", ""),
        ("read_note", "Read one of the user's notes by its id.", "read a note", ""),
    ]),
    ("tickr", "brokerage", &[
        ("stock_price", "Read the current share price of a company by its ticker symbol, such as AAPL.", "read a share price", "lire le cours d'une action"),
        ("portfolio_value", "Read the value of the user's investment portfolio and today's change.", "read your portfolio", ""),
        ("watch_stock", "Add a ticker symbol to the user's watchlist of shares.", "watch a share", ""),
    ]),
    ("lingo", "translation", &[
        ("translate_text", "Translate a text into another language. Languages are two-letter codes such as fr.", "translate a text", "traduire un texte"),
        ("detect_language", "Tell which language a text is written in.", "detect a language", ""),
    ]),
    ("tempo", "clock", &[
        ("start_timer", "Start a countdown timer of a number of minutes with a label.", "start a timer", "lancer un minuteur"),
        ("cancel_timer", "Stop a running countdown timer by its label.", "stop a timer", ""),
        ("set_alarm", "Set an alarm clock to ring at a time of day.", "set an alarm", "régler un réveil"),
    ]),
    ("quizzy", "games", &[
        ("trivia_question", "Ask a trivia quiz question on a topic, with its answer.", "ask a quiz question", "poser une question de quiz"),
        ("roll_dice", "Roll dice, such as 2d6, and return the results.", "roll dice", "lancer les dés"),
        ("daily_puzzle", "Give today's word puzzle.", "give today's puzzle", ""),
    ]),
    ("cookbook", "recipes", &[
        ("find_recipe", "Find cooking recipes for a dish or from ingredients the user has.", "find a recipe", "trouver une recette"),
        ("recipe_steps", "Read the ingredients and cooking steps of a recipe by its id.", "read a recipe's steps", ""),
    ]),
    ("headliner", "news", &[
        ("top_headlines", "List today's top news headlines of a country.", "read the headlines", "lire les titres du jour"),
        ("search_articles", "Search recent press articles about a subject.", "search press articles", ""),
    ]),
    ("stridely", "fitness", &[
        ("steps_today", "Read how many steps the user walked today and the distance.", "read your steps", "lire vos pas du jour"),
        ("log_workout", "Record a workout with its sport and duration in minutes.", "log a workout", ""),
        ("sleep_summary", "Read how long and how well the user slept last night.", "read your sleep", ""),
        ("heart_rate", "Read the user's resting heart rate and last measurement.", "read your heart rate", ""),
    ]),
    ("mailbird", "mailbox", &[
        ("unread_mail", "List the unread emails in the user's inbox with their senders and subjects.", "list your unread emails", "lister vos e-mails non lus"),
        ("search_mail", "Search the user's emails by sender or words.", "search your emails", ""),
    ]),
    ("waypoint", "maps", &[
        ("directions", "Give driving, walking or transit directions from one place to another.", "give directions", "donner un itinéraire"),
        ("travel_time", "Tell how long a trip between two places takes now, with traffic.", "tell the travel time", ""),
        ("nearby_places", "Find places of a kind near an address, such as a pharmacy or a cafe.", "find nearby places", ""),
    ]),
    ("fxrate", "exchange", &[
        ("convert", "Convert an amount of money from one currency to another with today's reference rates. Currencies are three-letter codes such as USD, EUR or JPY.", "convert money between currencies", "convertir des devises"),
    ]),
    ("cartful", "shopping", &[
        ("add_item", "Add an item to the user's shopping list.", "add to your shopping list", "ajouter à la liste de courses"),
        ("shopping_items", "Read the items on the user's shopping list.", "read your shopping list", ""),
        ("clear_items", "Remove the items the user already bought from the shopping list.", "clear bought items", ""),
    ]),
    ("parcelo", "delivery", &[
        ("track_package", "Tell where a parcel is and when it will be delivered, by its tracking number.", "track a parcel", "suivre un colis"),
        ("list_deliveries", "List the user's parcels on their way.", "list your deliveries", ""),
    ]),
    ("cinelist", "cinema", &[
        ("showtimes", "List the showtimes of a film in cinemas near a city.", "list film showtimes", "horaires des séances"),
        ("movie_info", "Read the plot, cast and rating of a film or a series.", "read about a film", ""),
    ]),
    ("thermia", "heating", &[
        ("set_temperature", "Set the thermostat of the user's home to a temperature in degrees.", "set the thermostat", "régler le chauffage"),
        ("room_temperature", "Read the temperature and humidity of each room of the user's home.", "read room temperatures", ""),
    ]),
    ("wordly", "dictionary", &[
        ("define_word", "Give the meaning of an English word with an example.", "define a word", "définir un mot"),
        ("synonyms", "List synonyms of a word.", "find synonyms", ""),
    ]),
    ("scoreline", "sports", &[
        ("live_scores", "Read the live scores of football, basketball or tennis matches.", "read live scores", "lire les scores en direct"),
        ("team_fixtures", "List the next matches of a team.", "list a team's matches", ""),
        ("league_table", "Read the standings of a league.", "read a league table", ""),
    ]),
    ("castaway", "podcasts", &[
        ("play_episode", "Play the latest episode of a podcast show.", "play a podcast episode", "écouter un podcast"),
        ("new_episodes", "List new episodes of the shows the user follows.", "list new episodes", ""),
    ]),
    ("coinwatch", "crypto", &[
        ("coin_price", "Read the price of a cryptocurrency such as bitcoin in a currency.", "read a coin price", ""),
    ]),
    ("skyroute", "travel", &[
        ("flight_status", "Tell whether a flight is on time, delayed or cancelled, by its flight number.", "check a flight", "vérifier un vol"),
        ("search_flights", "Search flights between two airports on a date, with prices.", "search flights", ""),
    ]),
];

/// The account tools every service has, `{n}` its account's subject.
const ACCOUNT: &[(&str, &str, &str)] = &[
    ("account_status", "Read the state of the user's {n} account: plan, usage and limits.", "read your {n} account"),
    ("sync_now", "Sync the user's {n} data with the service now.", "sync your {n} data"),
    ("export_data", "Export the user's {n} data as a file and return its id.", "export your {n} data"),
    ("linked_devices", "List the devices linked to the user's {n} account.", "list linked devices"),
    ("preferences", "Read the user's {n} preferences.", "read your {n} preferences"),
    ("service_status", "Read whether the {n} service is up or has an outage.", "read the {n} service status"),
    ("usage_report", "Read how much the user used the {n} service this month.", "read your {n} usage"),
    ("notifications", "List the unread notifications of the {n} service.", "list {n} notifications"),
    ("support_request", "Open a support request with the {n} service, with a subject.", "contact {n} support"),
    ("plans", "List the plans of the {n} service with their prices.", "list {n} plans"),
    ("quota_left", "Read the requests left today on the user's {n} account.", "read your {n} quota"),
    ("renew_session", "Renew the user's {n} session.", "renew your {n} session"),
    ("invite_code", "Make an invite code of the {n} service for a friend.", "make a {n} invite"),
    ("change_language", "Change the language of the {n} service for the user.", "change the {n} language"),
];

/// The other services' tools, `{s}` one thing, `{p}` several.
const THINGS: &[(&str, &str, &str)] = &[
    ("list_{p}", "List the user's {p} with their ids.", "list your {p}"),
    ("add_{s}", "Add a {s} to the user's {p} with a title.", "add a {s}"),
    ("search_{p}", "Search the user's {p} by words and return the matches with their ids.", "search your {p}"),
    ("read_{s}", "Read one {s} of the user's by its id.", "read a {s}"),
    ("rename_{s}", "Change the title of one {s} by its id.", "rename a {s}"),
    ("archive_{s}", "Move one {s} to the archive by its id.", "archive a {s}"),
    ("count_{p}", "Count the user's {p}.", "count your {p}"),
    ("recent_{p}", "List the {p} the user opened last.", "list recent {p}"),
    ("share_{s}", "Make a share code for one {s} by its id.", "share a {s}"),
    ("tag_{s}", "Add a tag to one {s} by its id.", "tag a {s}"),
    ("list_tags", "List the tags used on the user's {p}.", "list {s} tags"),
    ("export_{p}", "Export the user's {p} as a file and return its id.", "export your {p}"),
    ("favorite_{s}", "Mark one {s} as a favorite by its id.", "mark a {s} as favorite"),
    ("sync_{p}", "Sync the user's {p} with the service now.", "sync your {p}"),
    ("account_status", "Read the state of the user's account: plan, usage and limits.", "read your account"),
];

/// The other services: one thing, several, and the names of three services.
const OTHERS: &[(&str, &str, [&str; 3])] = &[
    ("bookmark", "bookmarks", ["linkstash", "markly", "pinboardy"]),
    ("invoice", "invoices", ["billdesk", "invoicely", "paypad"]),
    ("contact", "contacts", ["addressly", "peoplebook", "rolodex"]),
    ("password", "passwords", ["keyvault", "passbolt", "lockbox"]),
    ("expense", "expenses", ["spendwise", "receipto", "pennypal"]),
    ("habit", "habits", ["streaks", "habitica", "dailyloop"]),
    ("journal_entry", "journal_entries", ["dayone", "diarist", "moodlog"]),
    ("wiki_page", "wiki_pages", ["wikidesk", "pagebase", "knowhow"]),
    ("ticket", "tickets", ["helpdesk", "issuely", "bugnest"]),
    ("repository", "repositories", ["codehub", "gitnest", "repobox"]),
    ("form", "forms", ["formly", "surveyor", "typeform"]),
    ("file", "files", ["dropcloud", "filevault", "boxdrive"]),
    ("budget", "budgets", ["budgetly", "moneyjar", "ynabish"]),
    ("course", "courses", ["learnly", "coursera", "skillup"]),
    ("flashcard", "flashcards", ["ankiweb", "cardcram", "memorize"]),
    ("plant", "plants", ["greenthumb", "plantpal", "leafy"]),
    ("pet", "pets", ["petcare", "furbook", "vetly"]),
    ("car", "cars", ["autolog", "carcare", "fleetly"]),
    ("parking_spot", "parking_spots", ["parkme", "spotfinder", "parkwise"]),
    ("hotel_booking", "hotel_bookings", ["staywise", "roomly", "hotelio"]),
    ("restaurant", "restaurants", ["tablefor2", "dinewise", "forkly"]),
    ("wine", "wines", ["cellartracker", "vinly", "grapebook"]),
    ("book", "books", ["bookshelf", "readwise", "pagely"]),
    ("comic", "comics", ["panelbox", "inkwell", "comicly"]),
    ("artwork", "artworks", ["galleria", "artbox", "canvasly"]),
    ("quote", "quotes", ["quotebook", "wisdomly", "sayings"]),
    ("photo", "photos", ["photobox", "snapvault", "pixelroll"]),
    ("video", "videos", ["clipbox", "reelvault", "vidly"]),
    ("font", "fonts", ["typekit", "fontbook", "glyphly"]),
    ("domain_name", "domain_names", ["dnsdesk", "domainly", "registrar"]),
    ("server", "servers", ["cloudops", "hostdesk", "uptimer"]),
    ("backup", "backups", ["backupr", "snapsafe", "archivist"]),
    ("log_entry", "log_entries", ["logbook", "logstash", "trailog"]),
    ("metric", "metrics", ["graphly", "dashboard", "statsdesk"]),
    ("customer", "customers", ["crmdesk", "salesly", "clientbook"]),
    ("lead", "leads", ["leadbox", "pipeliner", "prospecto"]),
    ("order", "orders", ["orderdesk", "shopadmin", "storely"]),
    ("product", "products", ["catalogr", "inventory", "stockroom"]),
    ("coupon", "coupons", ["couponly", "dealbox", "savewise"]),
    ("survey", "surveys", ["pollster", "askly", "feedbackr"]),
    ("chat_room", "chat_rooms", ["chatdesk", "roomtalk", "huddle"]),
    ("channel", "channels", ["streamdesk", "channely", "broadcast"]),
    ("recipe_card", "recipe_cards", ["cardbox", "kitchenly", "mealcards"]),
    ("garden_bed", "garden_beds", ["gardenly", "bedplanner", "sowwise"]),
    ("project", "projects", ["projectly", "planboard", "kanbanio"]),
    ("goal", "goals", ["goalpost", "okrdesk", "targetly"]),
    ("meeting_note", "meeting_notes", ["minutes", "notetaker", "recapper"]),
    ("snippet", "snippets", ["snipbox", "gistly", "codenotes"]),
    ("diagram", "diagrams", ["drawly", "chartbox", "sketchpad"]),
    ("presentation", "presentations", ["slidedeck", "pitchly", "keynoter"]),
    ("spreadsheet", "spreadsheets", ["sheetly", "gridbox", "tabular"]),
    ("document", "documents", ["docbox", "writely", "paperwork"]),
    ("signature", "signatures", ["signly", "docusign", "inkpad"]),
    ("certificate", "certificates", ["certbox", "tlsdesk", "keystore"]),
    ("volunteer_shift", "volunteer_shifts", ["helpinghand", "shiftly", "rotaplan"]),
    ("donation", "donations", ["givewise", "donately", "charitybox"]),
    ("collection", "collections", ["collectr", "curator", "hoardly"]),
    ("board_game", "board_games", ["meeplebox", "gamenight", "boardly"]),
    ("trip_plan", "trip_plans", ["tripit", "wanderly", "itinero"]),
];

/// A valid plugin of `slug` with `tools` (name, description, hints).
fn manifest(slug: &str, tools: &[(String, String, String, String)]) -> Value {
    let mut map = Map::new();
    for (name, description, en, fr) in tools {
        let mut hint = json!({ "en": en });
        if !fr.is_empty() {
            hint["fr"] = json!(fr);
        }
        map.insert(
            name.clone(),
            json!({ "description": description, "hint": hint,
                    "inputSchema": { "type": "object", "properties": {
                        "query": { "type": "string", "description": "What the tool is about", "maxLength": 200 } } },
                    "request": { "method": "GET", "url": format!("https://api.{slug}.example/{name}"),
                                 "query": { "q": "{{query}}" } } }),
        );
    }
    json!({ "name": slug, "version": "1.0.0", "_meta": { "com.desktopaicompanion": {
        "apiVersion": 1, "kind": "declarative", "slug": slug,
        "permissions": { "network": { "hosts": [format!("api.{slug}.example")] } },
        "tools": map
    } } })
}

/// Every plugin's manifest, sorted by slug as the store gives them.
pub fn manifests() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (slug, subject, tools) in DOMAINS {
        let mut all: Vec<(String, String, String, String)> =
            tools.iter().map(|(n, d, en, fr)| (n.to_string(), d.to_string(), en.to_string(), fr.to_string())).collect();
        for (n, d, en) in ACCOUNT.iter().take(15 - tools.len()) {
            all.push((n.to_string(), d.replace("{n}", subject), en.replace("{n}", subject), String::new()));
        }
        out.push((slug.to_string(), manifest(slug, &all)));
    }
    for (one, several, services) in OTHERS {
        for slug in services {
            let fill = |t: &str| t.replace("{s}", &one.replace('_', " ")).replace("{p}", &several.replace('_', " "));
            let all: Vec<(String, String, String, String)> = THINGS
                .iter()
                .map(|(n, d, en)| (n.replace("{s}", one).replace("{p}", several), fill(d), fill(en), String::new()))
                .collect();
            out.push((slug.to_string(), manifest(slug, &all)));
        }
    }
    out.truncate(200);
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The 200 plugins, active, as the courtier sees them, for a player
/// speaking `language`.
pub fn contexts(language: Language) -> Vec<Arc<CallContext>> {
    manifests().iter().map(|(_, manifest)| Arc::new(active(manifest, language))).collect()
}

/// The plugin of `manifest` (valid), installed and active, every switch on,
/// nothing else chosen, for a player speaking `language`.
pub fn active(manifest: &Value, language: Language) -> CallContext {
    let checked = validate_manifest(&serde_json::to_vec(manifest).expect("json"), &Options::default());
    let plugin = checked.plugin.unwrap_or_else(|| panic!("{manifest}: {:?}", checked.problems));
    CallContext {
        slug: plugin.slug.clone(),
        plugin: Some(Arc::new(plugin)),
        status: Status::Active,
        prefs: Prefs { plugins_enabled: true, tools_enabled: true, dev_mode: false, language },
        tools_off: Vec::new(),
        kept_on_pc: false,
        twitch_allowed: false,
        folder: false,
        settings: Default::default(),
        sealed: Default::default(),
    }
}
