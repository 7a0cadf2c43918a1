/** The big real page of the benchmark: the Rust book on one page (1.9 MB). Its name in the run and in the report. */
export const RUST_BOOK_PAGE = 'Rust book print.html (1.9 MB, real page)';
