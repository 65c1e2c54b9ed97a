//! The desktop app's native "Open a video" dialog: GTK's own file chooser (the dialog every
//! GTK desktop shows), over the UI window, on the main thread. One dialog, shown again when
//! asked again; what it opens goes to `on_chosen`.

use std::cell::RefCell;
use std::path::PathBuf;

use gtk::prelude::*;

/// What the "Videos" filter shows besides `video/*` types (files a desktop may not type).
const VIDEO_PATTERNS: &[&str] = &[
    "*.mp4", "*.m4v", "*.mov", "*.mkv", "*.webm", "*.avi", "*.ts", "*.mts", "*.m2ts", "*.mpg",
    "*.mpeg", "*.flv", "*.wmv",
];

/// The dialog's title (tests find its window by it).
pub const TITLE: &str = "Open a video — sportz";

thread_local! {
    static DIALOG: RefCell<Option<gtk::FileChooserDialog>> = const { RefCell::new(None) };
}

/// Shows the dialog (must run on the GTK main thread); `on_chosen` gets the file the user opens.
pub fn open(ui: &tauri::WebviewWindow, on_chosen: impl Fn(PathBuf) + 'static) {
    DIALOG.with(|slot| {
        if let Some(d) = slot.borrow().as_ref() {
            d.present();
            return;
        }
        let parent = ui.gtk_window().ok();
        let dialog = gtk::FileChooserDialog::with_buttons(
            Some(TITLE),
            parent.as_ref(),
            gtk::FileChooserAction::Open,
            &[
                ("_Cancel", gtk::ResponseType::Cancel),
                ("_Open", gtk::ResponseType::Accept),
            ],
        );
        let videos = gtk::FileFilter::new();
        videos.set_name(Some("Videos"));
        videos.add_mime_type("video/*");
        for p in VIDEO_PATTERNS {
            videos.add_pattern(p);
        }
        dialog.add_filter(videos);
        let all = gtk::FileFilter::new();
        all.set_name(Some("All files"));
        all.add_pattern("*");
        dialog.add_filter(all);
        // where videos usually are: ~/Videos, else the home folder
        let start = gtk::glib::user_special_dir(gtk::glib::UserDirectory::Videos)
            .filter(|d| d.is_dir())
            .unwrap_or_else(gtk::glib::home_dir);
        let _ = dialog.set_current_folder(&start);
        dialog.set_modal(true);
        dialog.set_local_only(true);
        dialog.connect_response(move |d, response| {
            let chosen = (response == gtk::ResponseType::Accept)
                .then(|| d.filename())
                .flatten();
            d.hide();
            if let Some(path) = chosen {
                on_chosen(path);
            }
        });
        // closing it with the window's close button hides it for the next time
        dialog.connect_delete_event(|d, _| {
            d.hide();
            gtk::glib::Propagation::Stop
        });
        dialog.present();
        *slot.borrow_mut() = Some(dialog);
    });
}
