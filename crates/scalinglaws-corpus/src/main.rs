fn main() {
    let data = std::path::Path::new(&std::env::args().nth(1).unwrap_or("../shared/data".into()))
        .to_path_buf();
    let (sets, missing) = scalinglaws_corpus::studies::load_all(&data);
    for s in &sets {
        println!(
            "{:<28} {:<40} {:<18} rows {:>6}  {}",
            s.study,
            s.set,
            s.law,
            s.data.target.len(),
            s.note
        );
    }
    for (name, reason) in missing {
        println!("missing {name}: {reason}");
    }
}
