use agentry::store::StoreIndex;

fn main() {
    let index = StoreIndex::new(agentry::testing::TestModel::new());
    println!("{index:?}");
}
