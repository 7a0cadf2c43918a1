/** Every built page and bundle under /realapps/, by the path it is served at. */
export declare function realAppFiles(): Record<string, string>;
