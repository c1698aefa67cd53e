import json
from pathlib import Path

OUT = Path(__file__).resolve().parent
(OUT / "constraints").mkdir(parents=True, exist_ok=True)

def ch(*pairs):
    return [{"id": i, "label": l} for i, l in pairs]

YN = ch(("yes", "Yes"), ("no", "No"))

def c(id, text, prio, atype, choices, ans, reason):
    resolved = ans not in (None, "undecided")
    if atype == "free_text":
        label = ans
    elif not resolved:
        label = None
    elif isinstance(ans, list):
        label = [x["label"] for x in choices if x["id"] in ans]
    else:
        label = next(x["label"] for x in choices if x["id"] == ans)
    binding = reason in ("must_answered", "explicit_exclusion", "user_marked_hard")
    return {"id": id, "text": text, "priority": prio, "answer_type": atype, "choices": choices,
            "user_answer": ans, "user_answer_label": label, "resolved": resolved,
            "binding": binding, "binding_reason": reason}

SC = {
 "elearning_lms": [
  c("DELIVERY_CHANNEL", "How do learners access courses?", "must", "single_choice",
    ch(("web", "Responsive web app in the browser"), ("native", "Native iOS/Android apps"), ("desktop", "Desktop client (Electron)")), "web", "must_answered"),
  c("VIDEO_HOSTING", "Where are course videos hosted?", "must", "single_choice",
    ch(("vimeo", "Vimeo"), ("youtube", "YouTube (unlisted)"), ("self_hosted", "Self-hosted (S3 + CloudFront)")), "self_hosted", "must_answered"),
  c("CONTENT_STANDARDS", "Which content package formats must be imported?", "must", "multi_choice",
    ch(("scorm12", "SCORM 1.2"), ("xapi", "xAPI (Tin Can)"), ("cmi5", "cmi5")), ["scorm12", "xapi"], "must_answered"),
  c("PAID_COURSES", "Is selling courses to external learners (prices, checkout) in scope?", "should", "yes_no", YN, "no", "explicit_exclusion"),
  c("AUTO_CERTIFICATES", "Must completion certificates be issued automatically when a learner passes?", "must", "yes_no", YN, "yes", "must_answered"),
  c("GAMIFICATION", "Leaderboards and badges?", "could", "yes_no", YN, "yes", "non_binding_priority"),
  c("AUTHORING", "Where are courses authored?", "should", "single_choice",
    ch(("builtin", "Built-in course editor"), ("external", "External tools (Articulate) only")), "external", "non_binding_priority"),
  c("PROCTORING", "Do final exams need proctoring?", "must", "yes_no", YN, "undecided", "unresolved"),
 ],
 "warehouse_wms": [
  c("SCANNING_HARDWARE", "What do pickers scan with?", "must", "single_choice",
    ch(("handheld", "Zebra handheld barcode scanners"), ("rfid", "RFID tags and gate readers"), ("byod", "Workers' personal smartphones (BYOD)")), "handheld", "must_answered"),
  c("ERP_SYSTEM", "Which ERP is the system of record for stock and orders?", "must", "single_choice",
    ch(("netsuite", "Oracle NetSuite"), ("sap_b1", "SAP Business One"), ("odoo", "Odoo")), "netsuite", "must_answered"),
  c("PICKING_STRATEGY", "Which picking strategy do the warehouses use?", "must", "single_choice",
    ch(("discrete", "Discrete picking (one order per trip)"), ("wave", "Wave picking"), ("zone", "Zone picking")), "zone", "must_answered"),
  c("AUTOMATION", "Is integration with robots, AMRs or conveyor systems in scope?", "should", "yes_no", YN, "no", "explicit_exclusion"),
  c("STOCK_SYNC", "How fresh must stock levels be in the ERP?", "must", "free_text", [],
    "Every stock movement reaches NetSuite within 60 seconds; no nightly batch exports.", "must_answered"),
  c("OFFLINE_SCANNING", "Must scanning keep working when Wi-Fi drops in the aisles?", "must", "yes_no", YN, "yes", "must_answered"),
  c("LABEL_FORMAT", "Label format?", "could", "single_choice", ch(("zpl", "ZPL"), ("pdf", "PDF labels")), "zpl", "non_binding_priority"),
  c("MULTI_SITE", "Does one installation serve several warehouses?", "must", "yes_no", YN, "undecided", "unresolved"),
 ],
 "municipal_permits": [
  c("CITIZEN_LOGIN", "How do citizens sign in?", "must", "single_choice",
    ch(("eid", "National eID (itsme)"), ("accounts", "Email and password accounts"), ("social", "Google or Facebook login")), "eid", "must_answered"),
  c("ONLINE_FEES", "Is paying permit fees online in scope?", "should", "yes_no", YN, "no", "explicit_exclusion"),
  c("LANGUAGES", "Which languages must the portal offer?", "must", "multi_choice",
    ch(("nl", "Dutch"), ("fr", "French"), ("en", "English")), ["nl", "fr"], "must_answered"),
  c("ACCESSIBILITY", "What accessibility level is required?", "must", "free_text", [],
    "WCAG 2.1 AA on every page and every generated PDF, confirmed by an external audit before launch.", "must_answered"),
  c("DOCUMENT_STORAGE", "Where are uploaded documents and plans stored?", "must", "single_choice",
    ch(("city_dc", "City data centre (on-premises)"), ("azure", "Microsoft Azure (West Europe)"), ("aws", "AWS (Frankfurt)")), "city_dc", "must_answered"),
  c("AI_ASSISTANT", "Should an AI assistant help citizens fill in forms?", "could", "yes_no", YN, "no", "non_binding_priority"),
  c("NOTIFICATIONS", "How are citizens told about status changes?", "should", "multi_choice",
    ch(("email", "Email"), ("sms", "SMS"), ("letter", "Paper letter")), ["email", "letter"], "non_binding_priority"),
  c("APPEALS", "Can citizens lodge appeals through the portal?", "must", "yes_no", YN, "undecided", "unresolved"),
 ],
 "restaurant_ordering": [
  c("ORDERING_CHANNEL", "How do guests order at the table?", "must", "single_choice",
    ch(("qr_web", "Scan a QR code and order in the browser"), ("app", "Restaurant app from the app stores"), ("waiter", "Waiter enters orders on a handheld")), "qr_web", "must_answered"),
  c("POS_SYSTEM", "Which POS receives the orders?", "must", "single_choice",
    ch(("lightspeed", "Lightspeed Restaurant"), ("square", "Square for Restaurants"), ("toast", "Toast")), "lightspeed", "must_answered"),
  c("OUT_OF_SCOPE", "Which services are out of scope for launch?", "should", "multi_choice",
    ch(("delivery", "Home delivery"), ("takeaway", "Takeaway / pickup orders"), ("reservations", "Table reservations")), ["delivery", "reservations"], "explicit_exclusion"),
  c("SPLIT_BILL", "Must guests be able to split the bill at the table?", "must", "yes_no", YN, "yes", "must_answered"),
  c("ALLERGENS", "How must allergen information be handled?", "must", "free_text", [],
    "Allergens come only from the Lightspeed item data and are shown on every dish; staff cannot override them in the ordering app.", "must_answered"),
  c("TIPPING", "Must guests be able to add a tip when they pay?", "should", "yes_no", YN, "yes", "user_marked_hard"),
  c("MENU_STYLE", "Menu style?", "could", "single_choice", ch(("photos", "Photo menu"), ("text", "Text-only menu")), "photos", "non_binding_priority"),
  c("LOYALTY", "Is there a loyalty programme?", "must", "yes_no", YN, "undecided", "unresolved"),
 ],
}

def P(id, kind, text, tags):
    return {"id": id, "artifact_kind": kind, "text": text, "expected": "pass", "violations": [], "tags": tags}

def F(id, kind, text, viol, tags):
    vs = [{"constraint_id": v[0], "rule": v[1], "evidence": v[2], "alt_rules": list(v[3]) if len(v) > 3 else []} for v in viol]
    return {"id": id, "artifact_kind": kind, "text": text, "expected": "fail", "violations": vs, "tags": tags}

D3 = ("QA-PGC-003",)
CASES = {
 "elearning_lms": [
  P("el-01", "architecture", "Learner front end: a responsive React app served from CloudFront, tested down to 360 px wide screens so people can take courses in their phone's browser. Course videos are transcoded to HLS by MediaConvert and stored in our own S3 bucket; signed URLs expire after an hour. SCORM 1.2 packages run in an iframe with the scorm-again runtime, and xAPI statements go to our LRS.", ["elaboration"]),
  F("el-02", "epic", "Epic: Learning on the go\n- Learners install the Academy app from the App Store or Google Play.\n- Courses can be saved to the device for flights.\n- Reminders arrive as push messages when a mandatory course is due.",
    [("DELIVERY_CHANNEL", "QA-PGC-001", "Learners install the Academy app from the App Store or Google Play")], ["paraphrase"]),
  F("el-03", "story", "Story: Upload a lecture\nAs an instructor I want to add a recorded lecture to my module.\n- The instructor uploads the MP4 to the team's Vimeo account and pastes the link; the Vimeo player is embedded in the lesson.\n- Chapters are read from the video description.",
    [("VIDEO_HOSTING", "QA-PGC-001", "uploads the MP4 to the team's Vimeo account")], ["direct_contradiction"]),
  P("el-04", "chat", "Yes, the course player works on phones, but through the browser. We are not building native apps for iOS or Android; a learner just opens the Academy link in Safari or Chrome and signs in with SSO.", ["negation"]),
  F("el-05", "chat", "I've wired the player to a generic HLS source for now. Where the videos will finally live is still up in the air, so I kept the storage adapter pluggable until someone makes the call.",
    [("VIDEO_HOSTING", "QA-PGC-003", "Where the videos will finally live is still up in the air")], ["implied_undecided", "paraphrase"]),
  F("el-06", "epic", "Epic: Open academy\n- External partners can buy a seat in any public course with a credit card.\n- An invoice with VAT is generated for each purchase.\n- L&D gets a quarterly revenue report.",
    [("PAID_COURSES", "QA-PGC-002", "External partners can buy a seat in any public course with a credit card", ("QA-PGC-001",))], ["paraphrase", "should_level_exclusion"]),
  P("el-07", "qa_plan", "QA plan – partner access\n- Partner accounts are created by an admin and see only the courses assigned to them.\n- Verify there is no price, cart or checkout anywhere in the partner view; partners never pay for courses.\n- Verify partner completions appear in the monthly report.", ["exclusion_confirmed"]),
  F("el-08", "qa_plan", "QA plan – compliance courses\n- SCORM 1.2 import: the sample packages from Articulate and iSpring launch and report completion.\n- xAPI: statements reach the LRS with the learner's email as actor.\n- Videos: playback from CloudFront with signed URLs; expired links return 403.\n- Mobile browsers: Safari on iOS 16 and Chrome on Android 12 render the player.\n- Reports: managers see overdue mandatory courses for their team.\n- Certificates: after a learner passes, the L&D team reviews the attempt and uploads the certificate PDF by hand within five working days.",
    [("AUTO_CERTIFICATES", "QA-PGC-001", "the L&D team reviews the attempt and uploads the certificate PDF by hand")], ["late_violation", "paraphrase", "long"]),
  P("el-09", "review", "Reviewed the editor PR: it adds a lightweight built-in page editor for quick text-only lessons, although we said authoring would happen in Articulate. That was only a preference, and heavier courses still come in as SCORM packages. Also fine that leaderboards are skipped for now; they were optional.", ["non_binding_deviation"]),
  F("el-10", "review", "The xAPI import looks solid and the LRS statements validate. Since a few vendors ship cmi5 now, it might be worth adding a cmi5 launcher as well while we're in this code.",
    [("CONTENT_STANDARDS", "QA-PGC-004", "it might be worth adding a cmi5 launcher as well")], ["suggestive_alternative"]),
  P("el-11", "epic", "Epic: Final exams\nWhether final exams need proctoring has not been decided; compliance and HR are still discussing it. This epic builds the timed exam, question pools and attempt limits, and leaves a hook where a proctoring step could be inserted if that gets approved.", ["undecided_constraint_open"]),
  F("el-12", "chat", "Quick poll for the steering group before we plan Q3: (a) keep learners in the browser, (b) build a desktop client with offline course sync, or (c) both. Reply with your pick by Thursday.",
    [("DELIVERY_CHANNEL", "QA-PGC-004", "(b) build a desktop client with offline course sync", D3)], ["decision_point"]),
  P("el-13", "chat", "A manager asked why our videos aren't on YouTube like the marketing ones. When the platform was scoped, L&D compared Vimeo and YouTube with hosting the files ourselves and picked self-hosting, because several courses cover unreleased products. That decision stands.", ["quoted_history"]),
  F("el-14", "story", "Story: Completion record\n- When a learner passes the final quiz, the course is marked complete in their transcript.\n- A certificate is only produced if the learner's manager requests one from the L&D inbox.",
    [("AUTO_CERTIFICATES", "QA-PGC-001", "A certificate is only produced if the learner's manager requests one from the L&D inbox")], ["paraphrase"]),
  P("el-15", "story", "Story: Certificate on completion\n- As soon as the passing score is recorded, a PDF certificate with the learner's name, course and date is generated and emailed.\n- The certificate can also be downloaded from the transcript page in the browser.\n- Completion comes from the SCORM 1.2 lesson status or an xAPI 'passed' statement.", ["elaboration", "multi_constraint"]),
  F("el-16", "architecture", "Client: an Electron shell wraps the course player so that learners on factory floors can install it on shared PCs and sync courses overnight. Content: SCORM 1.2 and xAPI packages, unpacked by the backend. Videos: served from our S3 bucket via CloudFront.",
    [("DELIVERY_CHANNEL", "QA-PGC-001", "an Electron shell wraps the course player so that learners on factory floors can install it on shared PCs")], ["multi_constraint"]),
 ],
 "warehouse_wms": [
  P("wh-01", "architecture", "Scanner app: a Kotlin app on the Zebra TC52 handhelds using DataWedge intents for the barcode engine. Each scan is committed to a local queue on the device and replayed to the WMS API when the access point comes back, so dead spots in the high racks don't stop picking. The WMS forwards every movement to NetSuite through SuiteTalk REST as it happens, with a retry queue; a dashboard shows the lag and alarms above 45 seconds.", ["elaboration"]),
  F("wh-02", "story", "Story: Receive a pallet\nAs a receiver I want to book in a pallet quickly.\n- The receiver opens the WMS page on their own phone and points the camera at the pallet label.\n- Quantities are confirmed with a tap.\n- Discrepancies open a ticket for the shift lead.",
    [("SCANNING_HARDWARE", "QA-PGC-001", "The receiver opens the WMS page on their own phone and points the camera at the pallet label")], ["paraphrase"]),
  F("wh-03", "architecture", "Integration: the WMS keeps its own stock ledger in PostgreSQL. At 02:00 a job collects the day's movements into a CSV and drops it on the SFTP server that NetSuite imports from; order lines come back the same way at 05:00.",
    [("STOCK_SYNC", "QA-PGC-001", "At 02:00 a job collects the day's movements into a CSV and drops it on the SFTP server")], ["paraphrase"]),
  P("wh-04", "chat", "The Lyon site asked whether the WMS will drive their new conveyor. It won't: we are not integrating conveyors or robots in this project. The conveyor keeps its own PLC controller, and pickers scan totes as they come off it, same as any other location.", ["negation", "exclusion_confirmed"]),
  F("wh-05", "epic", "Epic: Follow-me picking\n- Self-driving carts follow the picker through the aisles and carry full totes back to packing on their own.\n- The WMS tells each cart which picker to follow.\n- Pilot in Lyon in Q2.",
    [("AUTOMATION", "QA-PGC-002", "Self-driving carts follow the picker through the aisles and carry full totes back to packing on their own", ("QA-PGC-001",))], ["paraphrase", "should_level_exclusion"]),
  P("wh-06", "review", "The shipping label PR renders PDF labels instead of ZPL so the office laser printers can be used as a fallback. ZPL was only a nice-to-have in the clarifications, so that's fine; please keep the 4x6 layout so the thermal printers still work with the PDF.", ["non_binding_deviation"]),
  F("wh-07", "chat", "I've built the pick list screen so it shows one order at a time for now. Which picking approach the floor will actually use is still being worked out with operations, so I haven't done any zone assignment yet.",
    [("PICKING_STRATEGY", "QA-PGC-003", "Which picking approach the floor will actually use is still being worked out with operations")], ["implied_undecided", "paraphrase"]),
  F("wh-08", "review", "The zone assignment logic is correct and the handover to packing works. For peak season we could also look at grouping orders into timed waves released every 30 minutes; carriers pick up at fixed times anyway.",
    [("PICKING_STRATEGY", "QA-PGC-004", "we could also look at grouping orders into timed waves released every 30 minutes")], ["suggestive_alternative", "paraphrase"]),
  P("wh-09", "architecture", "Tenancy: it is still undecided whether one installation will serve all warehouses or each site gets its own. Every table therefore carries a site_id from day one, and configuration is loaded per site, so both options stay open until operations decides.", ["undecided_constraint_open"]),
  F("wh-10", "qa_plan", "QA plan – pick and pack\n- Zone picking: each picker only sees lines in their zone.\n- Totes are handed over at the zone boundary and scanned by the next picker.\n- Every movement shows up in NetSuite within 60 seconds.\n- Short picks create a cycle count task.\n- ZPL labels print on the Zebra ZT411 at packing.\n- Connectivity: if the handheld loses the network, scanning is blocked and the picker is sent to the nearest access point before continuing.",
    [("OFFLINE_SCANNING", "QA-PGC-001", "if the handheld loses the network, scanning is blocked")], ["late_violation", "paraphrase", "multi_constraint"]),
  P("wh-11", "chat", "Someone asked why we don't just use RFID like the retail stores. Operations evaluated RFID gates and BYOD phones against Zebra handhelds last spring and chose the handhelds, because the tags were too expensive per carton. The RFID pilot hardware went back to the vendor.", ["quoted_history"]),
  F("wh-12", "review", "Before we build more connectors: do we stay on NetSuite as the stock master, or move inventory to Odoo, which finance is trialling? Please vote in the channel; I'll pause the SuiteTalk work until then.",
    [("ERP_SYSTEM", "QA-PGC-004", "do we stay on NetSuite as the stock master, or move inventory to Odoo", D3)], ["decision_point"]),
  P("wh-13", "epic", "Epic: Replenishment\n- When a pick face drops below its minimum, a replenishment task goes to the reach-truck driver's handheld.\n- Drivers scan the source pallet and the pick face to confirm.\n- No robot or conveyor integration: moves are done by people, as agreed.\n- The movement is sent to NetSuite immediately.", ["exclusion_confirmed", "elaboration", "multi_constraint"]),
  F("wh-14", "story", "Story: Sales orders to the floor\n- Orders are pulled every minute from the B1 Service Layer and turned into pick tasks.\n- Cancelled orders are removed if picking hasn't started.",
    [("ERP_SYSTEM", "QA-PGC-001", "Orders are pulled every minute from the B1 Service Layer")], ["paraphrase"]),
  P("wh-15", "story", "Story: Faster zone handover\n- Pickers in zone A drop totes on the handover shelf between zones.\n- The next zone's picker scans the tote and sees only their lines.\n- Target: average handover under 20 seconds.", ["optimization_within_constraint"]),
 ],
 "municipal_permits": [
  P("mp-01", "architecture", "Sign-in goes through itsme via the federal authentication service; the portal never stores passwords. Uploaded building plans are written to the document store in the city's own data centre, replicated between the server rooms at the town hall and the depot. Every page and generated PDF is checked with axe and PAC in CI, and the external audit is booked for March.", ["elaboration"]),
  F("mp-02", "story", "Story: Register\nAs a citizen I want to create a profile so I can follow my applications.\n- Enter your email address, choose a secret of at least 12 characters and confirm via the link we send.\n- Forgotten secrets can be reset from the sign-in page.",
    [("CITIZEN_LOGIN", "QA-PGC-001", "choose a secret of at least 12 characters")], ["paraphrase"]),
  F("mp-03", "epic", "Epic: Checkout for permits\n- At the end of the application, the citizen settles the dossier cost with Bancontact or a credit card.\n- A receipt is attached to the dossier.\n- Failed transactions can be retried for 24 hours.",
    [("ONLINE_FEES", "QA-PGC-002", "the citizen settles the dossier cost with Bancontact or a credit card", ("QA-PGC-001",))], ["paraphrase", "should_level_exclusion"]),
  P("mp-04", "chat", "To confirm for the helpdesk script: the portal does not take payments. Once a permit is granted, the citizen receives an invoice from the finance department and pays it by bank transfer, exactly as today.", ["exclusion_confirmed"]),
  F("mp-05", "architecture", "Storage: uploaded plans go to a Blob Storage container with geo-redundancy, and the portal's database runs next to it in the same cloud tenant. Backups are kept for 35 days.",
    [("DOCUMENT_STORAGE", "QA-PGC-001", "uploaded plans go to a Blob Storage container with geo-redundancy")], ["paraphrase"]),
  F("mp-06", "review", "Translations PR: all French strings are in and the Dutch ones were proof-read by communications. Given the number of expats in the city, it might be nice to offer the forms in English too.",
    [("LANGUAGES", "QA-PGC-004", "it might be nice to offer the forms in English too")], ["suggestive_alternative"]),
  P("mp-07", "review", "The status-change PR also sends an SMS when a permit is granted. The clarifications only listed email and letters, but those were preferences, and SMS is opt-in per citizen, so I'm approving it.", ["non_binding_deviation"]),
  F("mp-08", "chat", "The application wizard is done. For the login step I put in a placeholder screen, because it's not settled yet how citizens will identify themselves; once that's agreed I'll hook it up.",
    [("CITIZEN_LOGIN", "QA-PGC-003", "it's not settled yet how citizens will identify themselves")], ["implied_undecided", "paraphrase"]),
  P("mp-09", "epic", "Epic: Decisions and next steps\n- Citizens see the decision letter as an accessible PDF in their dossier.\n- Whether appeals can be lodged through the portal is still open; until the legal department decides, the letter explains the paper procedure.", ["undecided_constraint_open"]),
  F("mp-10", "qa_plan", "QA plan – release 1\n- Login with itsme test accounts in the acceptance environment.\n- All forms available in Dutch and French; switching language keeps the form data.\n- Upload of plans up to 200 MB, stored in the city data centre.\n- Status emails and paper letters generated on each status change.\n- No payment step anywhere in the flow.\n- Accessibility: the audit only covers the web pages; generated PDFs are left out because the PDF engine can't tag them.",
    [("ACCESSIBILITY", "QA-PGC-001", "generated PDFs are left out because the PDF engine can't tag them")], ["late_violation", "multi_constraint", "long"]),
  P("mp-11", "chat", "Citizens asked on Facebook whether they can log in with Google. They can't: the council chose itsme over social logins and local accounts, because a permit application needs a verified identity. We won't add Google or Facebook sign-in.", ["quoted_history", "negation"]),
  F("mp-12", "architecture", "Open points for the architecture board:\n1. Storage for uploaded plans: keep them in the city data centre, or move them to AWS Frankfurt for cheaper scaling?\n2. Retention period for rejected applications.\n3. Naming convention for dossiers.",
    [("DOCUMENT_STORAGE", "QA-PGC-004", "keep them in the city data centre, or move them to AWS Frankfurt for cheaper scaling?", D3)], ["decision_point"]),
  P("mp-13", "story", "Story: Choose language\n- The portal opens in Dutch or French depending on the browser setting, with a switch in the header.\n- All PDFs and emails are produced in the language of the application.\n- Screen reader labels are translated too, to keep WCAG 2.1 AA in both languages.", ["elaboration", "multi_constraint"]),
  F("mp-14", "story", "Story: Plan viewer\n- Plans are shown in a canvas viewer with zoom and pan.\n- The viewer is mouse-only for now; keyboard and screen reader support can come after launch.",
    [("ACCESSIBILITY", "QA-PGC-001", "The viewer is mouse-only for now; keyboard and screen reader support can come after launch")], ["paraphrase"]),
  P("mp-15", "chat", "I added a short FAQ next to the fee table explaining how the invoice is sent after the decision. We talked about a chatbot for the forms, but it was a could-have and we skipped it; the FAQ covers the common questions.", ["elaboration", "non_binding_deviation"]),
 ],
 "restaurant_ordering": [
  P("ro-01", "architecture", "Each table has a sticker with a QR code that opens the menu in the guest's browser, with the table number in the URL. Orders are posted to Lightspeed Restaurant through its order API, so the kitchen printers keep working as today. Dish allergens are read from the Lightspeed items on every menu sync and can't be edited in our admin.", ["elaboration"]),
  F("ro-02", "epic", "Epic: Dinner at home\n- Guests enter their address and get the food brought to their door by our own riders.\n- Service radius 5 km, minimum order €25.\n- Riders see the route on their phone.",
    [("OUT_OF_SCOPE", "QA-PGC-002", "Guests enter their address and get the food brought to their door by our own riders", ("QA-PGC-001",))], ["paraphrase", "should_level_exclusion"]),
  P("ro-03", "story", "Story: Pickup orders\nAs a guest I want to order food to collect at the counter.\n- The QR menu offers 'Pick up at the counter' with a time slot.\n- The order goes to Lightspeed flagged as takeaway.\n- Home delivery and table bookings stay out of scope, as agreed.", ["exclusion_confirmed", "multi_constraint"]),
  F("ro-04", "story", "Story: Pay at the table\n- The guest taps 'Pay' and settles the whole table's bill in one payment.\n- Paying per person or per item isn't possible; the table pays as one.",
    [("SPLIT_BILL", "QA-PGC-001", "Paying per person or per item isn't possible")], ["paraphrase"]),
  F("ro-05", "review", "The QR menu loads in under a second now, nice work. Regulars might prefer a proper app with saved favourites, so we could also publish one in the stores next year.",
    [("ORDERING_CHANNEL", "QA-PGC-004", "we could also publish one in the stores next year")], ["suggestive_alternative", "paraphrase"]),
  P("ro-06", "review", "The lunch menu ships as text-only because the photographer couldn't come before launch. Photos were a could-have, so this is fine; the layout leaves room for images later.", ["non_binding_deviation"]),
  F("ro-07", "chat", "Orders currently land in a stub queue. The till integration depends on whether we end up with Lightspeed or Square, so I'm waiting for that before writing the connector.",
    [("POS_SYSTEM", "QA-PGC-003", "depends on whether we end up with Lightspeed or Square")], ["implied_undecided"]),
  P("ro-08", "chat", "A franchise owner asked about Deliveroo. We are not doing delivery in this project, and reservations aren't part of it either; guests order at the table or for pickup.", ["negation", "exclusion_confirmed"]),
  F("ro-09", "qa_plan", "QA plan – payment flow\n- Pay for the whole table or split by item; each share is charged separately.\n- Apple Pay, Google Pay and cards through the Lightspeed payments integration.\n- Receipt by email if the guest enters an address.\n- Allergens: every dish shows the allergen icons from Lightspeed.\n- Order history visible for 24 hours on the table link.\n- Payment screen: it shows the bill total only, with no way to add anything on top.",
    [("TIPPING", "QA-PGC-001", "it shows the bill total only, with no way to add anything on top")], ["late_violation", "paraphrase", "should_marked_hard", "multi_constraint"]),
  P("ro-10", "epic", "Epic: Returning guests\nWe still haven't decided whether there will be a loyalty programme. For now this epic only stores an optional email at payment so that, if a programme is approved, earlier visits can be linked.", ["undecided_constraint_open"]),
  F("ro-11", "story", "Story: Kitchen notes\n- Floor managers can edit the allergen icons of a dish in the ordering admin when the chef changes a recipe.\n- Changes show up on the menu immediately.",
    [("ALLERGENS", "QA-PGC-001", "Floor managers can edit the allergen icons of a dish in the ordering admin")], ["paraphrase"]),
  F("ro-12", "chat", "Options for the till integration, please pick one at Monday's meeting:\n1. Lightspeed order API (current plan)\n2. Switch the restaurants to Toast, which bundles handhelds\n3. Keep both and sync nightly",
    [("POS_SYSTEM", "QA-PGC-004", "Switch the restaurants to Toast, which bundles handhelds", D3)], ["decision_point"]),
  P("ro-13", "chat", "For the new hires: at the pilot site the owners tried waiters with handhelds and a branded app, and chose QR ordering in the browser because guests didn't want to install anything. That's why every table has a sticker.", ["quoted_history"]),
  F("ro-14", "architecture", "Ordering flow: the server walks up with a Sunmi device, keys in the guest's choices and fires them to the kitchen; guests never touch the menu themselves. Orders reach Lightspeed through the order API.",
    [("ORDERING_CHANNEL", "QA-PGC-001", "the server walks up with a Sunmi device, keys in the guest's choices")], ["paraphrase"]),
  P("ro-15", "story", "Story: Split and tip\n- Each guest at the table can pay for their own items or an equal share.\n- Before confirming, the guest can add a tip of 5, 10 or 15% or a custom amount.\n- The table is closed in Lightspeed when the last share is paid.", ["elaboration", "multi_constraint"]),
 ],
}

lines = []
for sc, clar in SC.items():
    (OUT / "constraints" / f"{sc}.json").write_text(json.dumps({"pgc_clarifications": clar}, indent=2, ensure_ascii=False) + "\n")
    ids = {x["id"]: x for x in clar}
    for case in CASES[sc]:
        case = {"id": case["id"], "scenario": sc, **{k: v for k, v in case.items() if k != "id"}}
        for v in case["violations"]:
            assert v["evidence"] in case["text"], (case["id"], v["evidence"])
            assert ids[v["constraint_id"]]["binding"], case["id"]
        n = len(case["text"].split())
        assert 25 <= n <= 250, (case["id"], n)
        lines.append(json.dumps(case, ensure_ascii=False))
(OUT / "cases.jsonl").write_text("\n".join(lines) + "\n")
print(len(lines), sum('"expected": "fail"' in l for l in lines))
