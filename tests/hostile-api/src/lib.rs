//! Exports `trajhost:codec/codec@9.0.0`: a future, incompatible API.

wit_bindgen::generate!({
    inline: "
        package trajhost:codec@9.0.0;
        interface codec {
            info: func() -> string;
        }
        world future-codec {
            export codec;
        }
    ",
});

struct Future;

impl exports::trajhost::codec::codec::Guest for Future {
    fn info() -> String {
        "from the future".into()
    }
}

export!(Future);
